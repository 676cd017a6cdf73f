#include "service/daemon/webhook/webhook_signer.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <algorithm>

namespace tc::daemon {
namespace {

std::string hmac_sha256(std::string_view key, std::string_view body) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(body.data()), body.size(), digest, &size);
  return std::string(reinterpret_cast<const char*>(digest), size);
}

std::string base64(std::string_view bytes) {
  std::string text(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  int size = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(text.data()),
                             reinterpret_cast<const unsigned char*>(bytes.data()),
                             static_cast<int>(bytes.size()));
  text.resize(size);
  return text;
}

}  // namespace

std::string hmac_sha256_hex(std::string_view key, std::string_view body) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char byte : hmac_sha256(key, body)) {
    hex += kHex[byte >> 4];
    hex += kHex[byte & 0xf];
  }
  return hex;
}

Result<std::string> webhook_key(std::string_view secret) {
  static constexpr std::string_view kPrefix = "whsec_";
  if (secret.substr(0, kPrefix.size()) != kPrefix) return std::string(secret);
  std::string_view text = secret.substr(kPrefix.size());
  if (text.empty() || text.size() % 4 != 0)
    return Status{Code::kInvalidArgument, "a whsec_ secret must be whsec_ and base64"};
  std::string key(text.size() / 4 * 3, '\0');
  int size = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(key.data()),
                             reinterpret_cast<const unsigned char*>(text.data()),
                             static_cast<int>(text.size()));
  if (size < 0) return Status{Code::kInvalidArgument, "a whsec_ secret must be whsec_ and base64"};
  // EVP_DecodeBlock counts the padding as bytes.
  size_t padding = text.size() - text.find_last_not_of('=') - 1;
  key.resize(static_cast<size_t>(size) - std::min<size_t>(padding, 2));
  return key;
}

Result<std::string> make_webhook_secret() {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof bytes) != 1)
    return Status(Code::kInternal, "webhook secret: the system's random source failed");
  return "whsec_" + base64(std::string_view(reinterpret_cast<const char*>(bytes), sizeof bytes));
}

std::string webhook_signature(const std::vector<std::string>& keys, std::string_view id,
                              int64_t timestamp_s, std::string_view body) {
  std::string signed_text =
      std::string(id) + "." + std::to_string(timestamp_s) + "." + std::string(body);
  std::string header;
  for (const std::string& key : keys) {
    if (!header.empty()) header += ' ';
    header += "v1," + base64(hmac_sha256(key, signed_text));
  }
  return header;
}

}  // namespace tc::daemon
