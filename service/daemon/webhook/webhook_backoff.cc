#include "service/daemon/webhook/webhook_backoff.h"

#include <algorithm>

namespace tc::daemon {

int64_t WebhookBackoff::delay_ms(int attempts) const {
  int64_t delay = first_delay_ms;
  for (int i = 1; i < attempts && delay < max_delay_ms; ++i) delay *= 2;
  return std::min(delay, max_delay_ms);
}

std::optional<int64_t> WebhookBackoff::next_due_ms(int attempts, int64_t create_ms,
                                                   int64_t now_ms) const {
  if (attempts >= max_attempts) return std::nullopt;
  int64_t due = now_ms + delay_ms(attempts);
  if (due - create_ms > give_up_after_ms) return std::nullopt;
  return due;
}

}  // namespace tc::daemon
