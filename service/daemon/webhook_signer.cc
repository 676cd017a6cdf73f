#include "service/daemon/webhook_signer.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace tc::daemon {

std::string hmac_sha256_hex(std::string_view key, std::string_view body) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(body.data()), body.size(), digest, &size);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < size; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 0xf];
  }
  return hex;
}

std::string webhook_signature(std::string_view key, std::string_view body) {
  return "sha256=" + hmac_sha256_hex(key, body);
}

}  // namespace tc::daemon
