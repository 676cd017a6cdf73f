#include "service/daemon/bearer_token.h"

#include <string_view>

namespace tc::daemon {
namespace {

// Compares in time independent of where the strings differ: the token is a secret.
bool same_secret(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
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
