#include "service/daemon/model/retry_policy.h"

#include <algorithm>
#include <cmath>

namespace tc::daemon {

bool should_retry(const RetryPolicy& policy, const Status& error, int attempt) {
  return !error.is_ok() && error.retryable() && attempt < policy.max_attempts;
}

int64_t retry_delay_ms(const RetryPolicy& policy, int attempt) {
  double doublings = std::max(0, attempt - 1);
  double delay_s = std::min(policy.cap_s, policy.base_s * std::pow(2.0, std::min(doublings, 30.0)));
  return static_cast<int64_t>(delay_s * 1000);
}

}  // namespace tc::daemon
