// The signature of a webhook body: HMAC-SHA256 with the configured secret, as lowercase hex.
// Receivers compute the same over the exact bytes they received and compare (README, Webhooks).
#pragma once

#include <string>
#include <string_view>

namespace tc::daemon {

std::string hmac_sha256_hex(std::string_view key, std::string_view body);

// The X-Transcoded-Signature header's value: "sha256=<hex>".
std::string webhook_signature(std::string_view key, std::string_view body);

}  // namespace tc::daemon
