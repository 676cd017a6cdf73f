#include "service/daemon/api/caller_auth.h"

#include <string_view>

#include "service/daemon/api/bearer_token.h"

namespace tc::daemon {
namespace {

constexpr std::string_view kBearer = "Bearer ";

ApiStatus refused(const std::string& why) {
  return {ApiCode::kUnauthenticated, "authorization: " + why};
}

ApiStatus resolve_key(std::string_view presented, TenantDirectory& tenants, Caller& caller) {
  std::optional<PresentedKey> key = parse_api_key(presented);
  if (!key) return refused("malformed API key (expected tck_<key id>_<secret>)");
  Result<std::optional<KeyGrant>> grant = tenants.find_key(key->key_id);
  if (!grant.is_ok()) {
    const Status& status = grant.status();
    return {ApiCode::kUnavailable, ApiReason::kStoreUnavailable, "",
            "the job store cannot be reached now: " + status.message()};
  }
  if (!*grant) return refused("unknown API key " + key->key_id);
  if ((*grant)->key.revoked_ms != 0) return refused("API key " + key->key_id + " was revoked");
  if (!secret_matches(key->secret, (*grant)->key.secret_sha256))
    return refused("wrong secret for API key " + key->key_id);
  caller = caller_of((*grant)->tenant);
  return {};
}

}  // namespace

Caller caller_of(const TenantRecord& tenant) {
  Caller caller;
  caller.tenant = tenant.id;
  caller.admin = tenant.role == TenantRole::kAdmin;
  if (!caller.admin) caller.media_roots = tenant.media_roots;
  return caller;
}

ApiStatus authenticate(const grpc::ServerContextBase& context, const std::string& token,
                       TenantDirectory& tenants, Caller& caller) {
  const auto& metadata = context.client_metadata();
  auto it = metadata.find("authorization");
  if (it != metadata.end()) {
    std::string_view value(it->second.data(), it->second.size());
    if (value.substr(0, kBearer.size()) == kBearer &&
        looks_like_api_key(value.substr(kBearer.size())))
      return resolve_key(value.substr(kBearer.size()), tenants, caller);
  }
  TC_API_RETURN_IF_ERROR(check_bearer_token(context, token));
  caller = Caller::default_admin();
  return {};
}

}  // namespace tc::daemon
