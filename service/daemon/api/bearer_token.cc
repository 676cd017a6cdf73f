#include "service/daemon/api/bearer_token.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <array>
#include <string_view>

namespace tc::daemon {
namespace {

using Digest = std::array<unsigned char, SHA256_DIGEST_LENGTH>;

Digest sha256(std::string_view text) {
  Digest digest{};
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest.data());
  return digest;
}

// Compares in time independent of the secret: the SHA-256 digests of both (fixed length,
// whatever the lengths of the strings) with OpenSSL's constant-time CRYPTO_memcmp, so neither
// where the strings differ nor whether their lengths do shows in the time taken.
bool same_secret(std::string_view a, std::string_view b) {
  Digest da = sha256(a), db = sha256(b);
  return CRYPTO_memcmp(da.data(), db.data(), da.size()) == 0;
}

}  // namespace

ApiStatus check_bearer_token(const grpc::ServerContextBase& context, const std::string& token) {
  if (token.empty()) return {};
  const auto& metadata = context.client_metadata();
  auto it = metadata.find("authorization");
  if (it == metadata.end())
    return {ApiCode::kUnauthenticated, "authorization: bearer token required"};
  std::string_view value(it->second.data(), it->second.size());
  if (!same_secret(value, "Bearer " + token))
    return {ApiCode::kUnauthenticated, "authorization: wrong bearer token"};
  return {};
}

}  // namespace tc::daemon
