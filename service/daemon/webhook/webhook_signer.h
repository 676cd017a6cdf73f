// Webhook signatures as the Standard Webhooks convention makes them (standardwebhooks.com):
// HMAC-SHA256 over "<webhook-id>.<webhook-timestamp>.<body>", so a captured delivery cannot be
// replayed outside the receiver's tolerance window nor re-labelled with another id. Two secrets
// sign at once while one replaces the other (README, Webhooks).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pipeline/core/status.h"

namespace tc::daemon {

std::string hmac_sha256_hex(std::string_view key, std::string_view body);

// The HMAC key a configured secret stands for: "whsec_<base64>" is the base64's bytes (the
// convention's form); any other text is its own bytes. kInvalidArgument for bad base64.
Result<std::string> webhook_key(std::string_view secret);

// A new secret in the convention's form: "whsec_" and the base64 of 32 random bytes (OpenSSL
// RAND_bytes); kInternal when the system's random source fails.
Result<std::string> make_webhook_secret();

// The webhook-signature header's value: "v1,<base64 HMAC>" per key, space-separated.
std::string webhook_signature(const std::vector<std::string>& keys, std::string_view id,
                              int64_t timestamp_s, std::string_view body);

}  // namespace tc::daemon
