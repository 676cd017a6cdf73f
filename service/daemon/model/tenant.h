// Tenants: the teams sharing one fleet (docs/tenants.md). A tenant has a name, a role, the media
// roots its jobs may read and write, a weight (its fair share) and quotas. Callers
// prove who they are with an API key, `tck_<key id>_<secret>`: the key id is public and names the
// stored row, only the secret's SHA-256 is stored. The static token (auth_token_file), or no
// token configured, acts as the admin of tenant "default", which owns every job made before
// tenants existed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/core/status.h"

namespace tc::daemon {

inline constexpr const char* kDefaultTenant = "default";

enum class TenantRole { kTenant, kAdmin };
std::string_view role_name(TenantRole role);  // "tenant", "admin"
std::optional<TenantRole> parse_role(std::string_view name);

// A tenant's limits; 0 is none. Engine-seconds are every measured resource summed (CPU-seconds
// and each GPU engine class's busy seconds) over any 24 hours.
struct TenantQuotas {
  int64_t max_queued = 0;
  int64_t max_running = 0;
  int64_t engine_seconds_per_day = 0;
};

// What UpdateTenant changes: each field given replaces the stored one; nullopt keeps it.
struct TenantUpdate {
  std::optional<int> weight;
  std::optional<int64_t> max_queued;
  std::optional<int64_t> max_running;
  std::optional<int64_t> engine_seconds_per_day;
};

struct TenantRecord {
  std::string id;  // 1-63 of [a-z0-9-] (check_tenant_name)
  TenantRole role = TenantRole::kTenant;
  std::vector<std::string> media_roots;  // as given; each a node root or inside one
  int weight = 1;                        // >= 1: its share of the fleet against the others'
  int64_t create_ms = 0;
  TenantQuotas quotas;
};

// A stored key: never its secret.
struct ApiKeyRecord {
  std::string key_id;
  std::string tenant;
  std::string secret_sha256;  // lowercase hex
  int64_t created_ms = 0;
  int64_t revoked_ms = 0;  // 0 = valid
};

// A key with its tenant: what one authenticating read returns.
struct KeyGrant {
  ApiKeyRecord key;
  TenantRecord tenant;
};

// Who makes a call, as authentication resolved it. `media_roots` empty for an admin: the node's.
// Made only by authentication (caller_auth.h); one made otherwise is no tenant and sees nothing,
// so a path that forgot to authenticate grants nothing.
struct Caller {
  std::string tenant;
  bool admin = false;
  std::vector<std::string> media_roots;

  // The static token's caller (or anyone's where none is configured): tenant "default"'s admin.
  static Caller default_admin() { return Caller{kDefaultTenant, true, {}}; }

  // Whether this caller may see (read, watch, cancel) a job of `job_tenant`.
  bool sees(const std::string& job_tenant) const { return admin || job_tenant == tenant; }
  // The tenant a listing is limited to: nullopt (every tenant) for an admin only.
  std::optional<std::string> list_scope() const {
    return admin ? std::nullopt : std::optional<std::string>(tenant);
  }
};

// kInvalidArgument naming `field` unless `name` is 1-63 characters of [a-z0-9-].
Status check_tenant_name(std::string_view name, std::string_view field);

// A new key: `full` is shown to its owner once; `record` is what is stored.
struct NewApiKey {
  std::string full;  // tck_<key id>_<secret>
  ApiKeyRecord record;
};
// kInternal when the system's random source fails.
Result<NewApiKey> make_api_key(const std::string& tenant, int64_t now_ms);

// A presented key's parts; nullopt when it is not of the form tck_<key id>_<secret>.
struct PresentedKey {
  std::string key_id;
  std::string secret;
};
std::optional<PresentedKey> parse_api_key(std::string_view text);
bool looks_like_api_key(std::string_view text);  // starts with "tck_"

// SHA-256 of `secret` as lowercase hex.
std::string secret_digest(std::string_view secret);
// Whether `secret` hashes to `stored_hex`, compared in constant time (CRYPTO_memcmp).
bool secret_matches(std::string_view secret, const std::string& stored_hex);

}  // namespace tc::daemon
