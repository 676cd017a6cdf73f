// When a webhook delivery that failed is tried again: 1 s after the first failure, doubling up
// to 5 minutes; given up after 24 hours or 30 attempts (whichever comes first), so a receiver
// that is gone for good stops costing requests.
#pragma once

#include <cstdint>
#include <optional>

namespace tc::daemon {

struct WebhookBackoff {
  int64_t first_delay_ms = 1000;
  int64_t max_delay_ms = 5 * 60 * 1000;
  int64_t give_up_after_ms = 24LL * 3600 * 1000;
  int max_attempts = 30;

  // The delay before the next try after `attempts` failed POSTs (>= 1).
  int64_t delay_ms(int attempts) const;
  // When to try next, after `attempts` failed POSTs of a notice created at `create_ms`, at
  // `now_ms`; nullopt = give up.
  std::optional<int64_t> next_due_ms(int attempts, int64_t create_ms, int64_t now_ms) const;
};

}  // namespace tc::daemon
