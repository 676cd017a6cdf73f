#include "service/daemon/model/tenant.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <array>
#include <cstdio>

namespace tc::daemon {
namespace {

constexpr std::string_view kKeyPrefix = "tck_";

std::string hex(const unsigned char* bytes, size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  for (size_t i = 0; i < size; ++i) {
    text += kDigits[bytes[i] >> 4];
    text += kDigits[bytes[i] & 15];
  }
  return text;
}

// RFC 4648's URL-safe alphabet, without padding: a key is pasted into headers and shells.
std::string base64url(const unsigned char* bytes, size_t size) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string text;
  uint32_t buffer = 0;
  int bits = 0;
  for (size_t i = 0; i < size; ++i) {
    buffer = (buffer << 8) | bytes[i];
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      text += kAlphabet[(buffer >> bits) & 63];
    }
  }
  if (bits > 0) text += kAlphabet[(buffer << (6 - bits)) & 63];
  return text;
}

bool is_hex(std::string_view text) {
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return !text.empty();
}

}  // namespace

std::string_view role_name(TenantRole role) {
  return role == TenantRole::kAdmin ? "admin" : "tenant";
}

std::optional<TenantRole> parse_role(std::string_view name) {
  if (name == "admin") return TenantRole::kAdmin;
  if (name == "tenant") return TenantRole::kTenant;
  return std::nullopt;
}

Status check_tenant_name(std::string_view name, std::string_view field) {
  bool valid = !name.empty() && name.size() <= 63;
  for (char c : name)
    valid = valid && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-');
  if (valid) return {};
  return {Code::kInvalidArgument,
          std::string(field) + ": a tenant name is 1 to 63 characters of a-z, 0-9 and '-'"};
}

Result<NewApiKey> make_api_key(const std::string& tenant, int64_t now_ms) {
  std::array<unsigned char, 8> id{};
  std::array<unsigned char, 32> secret{};
  if (RAND_bytes(id.data(), id.size()) != 1 || RAND_bytes(secret.data(), secret.size()) != 1)
    return Status(Code::kInternal, "api key: the system's random source failed");
  NewApiKey key;
  key.record.key_id = hex(id.data(), id.size());
  std::string secret_text = base64url(secret.data(), secret.size());
  key.full = std::string(kKeyPrefix) + key.record.key_id + "_" + secret_text;
  key.record.tenant = tenant;
  key.record.secret_sha256 = secret_digest(secret_text);
  key.record.created_ms = now_ms;
  return key;
}

bool looks_like_api_key(std::string_view text) {
  return text.substr(0, kKeyPrefix.size()) == kKeyPrefix;
}

// The key id is hex (no '_'), so the first '_' after it starts the secret, whose base64url
// alphabet may hold '_' itself.
std::optional<PresentedKey> parse_api_key(std::string_view text) {
  if (!looks_like_api_key(text)) return std::nullopt;
  text.remove_prefix(kKeyPrefix.size());
  size_t cut = text.find('_');
  if (cut == std::string_view::npos || cut + 1 >= text.size()) return std::nullopt;
  std::string_view id = text.substr(0, cut);
  if (!is_hex(id) || id.size() > 64) return std::nullopt;
  return PresentedKey{std::string(id), std::string(text.substr(cut + 1))};
}

std::string secret_digest(std::string_view secret) {
  std::array<unsigned char, SHA256_DIGEST_LENGTH> digest{};
  SHA256(reinterpret_cast<const unsigned char*>(secret.data()), secret.size(), digest.data());
  return hex(digest.data(), digest.size());
}

bool secret_matches(std::string_view secret, const std::string& stored_hex) {
  std::string presented = secret_digest(secret);
  if (presented.size() != stored_hex.size()) return false;  // a damaged row: never equal
  return CRYPTO_memcmp(presented.data(), stored_hex.data(), presented.size()) == 0;
}

}  // namespace tc::daemon
