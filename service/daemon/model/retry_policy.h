// Retries with backoff (docs/daemon.md, Retries): an attempt that failed with a retryable error
// (its worker crashed or stalled, a transient store or device error) is queued again, to be
// claimed no earlier than a delay later, while the job has attempts left (max_attempts). An
// input error, a cancel or a refused output is not retried: running it again ends the same.
#pragma once

#include <cstdint>

#include "pipeline/core/status.h"

namespace tc::daemon {

struct RetryPolicy {
  int max_attempts = 3;  // runs of a job, the first included
  double base_s = 10;    // the delay before the second attempt
  double cap_s = 300;    // no delay is longer
};

// Whether attempt `attempt` (1, 2, ...), ended by `error`, is followed by another.
bool should_retry(const RetryPolicy& policy, const Status& error, int attempt);

// The delay after attempt `attempt` failed: base_s, doubling with each attempt, at most cap_s.
// No jitter: the claim goes to whichever node asks first after it, which spreads the retries
// of many jobs already, and a fixed delay is one an operator can read off a job.
int64_t retry_delay_ms(const RetryPolicy& policy, int attempt);

}  // namespace tc::daemon
