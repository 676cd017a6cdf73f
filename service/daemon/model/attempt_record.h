// One attempt of a job: a run on one node, from its start to how it ended. A job keeps every
// attempt it started (its history, in the job store's job_attempts table), so that a job that
// ran twice says where and why its first run ended. Written only by the transitions
// (job_transitions.h); the store saves what they changed with the job's row.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "pipeline/core/status.h"
#include "service/daemon/model/attempt_usage.h"

namespace tc::daemon {

enum class AttemptOutcome {
  kRunning = 1,  // not ended yet
  kSucceeded,
  kFailed,   // the job's error ended it (retried or not: the job's state says)
  kCrashed,  // its worker died without a result (a signal, an exit with no result)
  kCancelled,
  kLost,         // its node died (its lease ran out); the job was taken over
  kInterrupted,  // stopped by its own daemon's shutdown: the job runs again, not counted
};

std::string_view outcome_name(AttemptOutcome outcome);  // "running", "crashed", ...
std::optional<AttemptOutcome> parse_outcome(std::string_view name);

struct AttemptRecord {
  int number = 0;      // 1, 2, ...: JobRecord::attempt when it started
  std::string node;    // --node-id
  std::string device;  // as JobRecord::device
  int64_t start_ms = 0;
  int64_t end_ms = 0;  // 0 while running
  AttemptOutcome outcome = AttemptOutcome::kRunning;
  Status error;  // why it ended, when it did not succeed
  // What it measurably used (attempt_usage.h), set when an attempt that ran a worker ended,
  // whatever its outcome; empty while running and for one whose worker never started. Stored
  // once (the store's attempt_usage rows) with the write that records its end.
  ResourceSeconds usage;
};

}  // namespace tc::daemon
