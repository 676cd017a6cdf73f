#include "service/daemon/model/job_transitions.h"

#include <algorithm>

namespace tc::daemon {
namespace {

// The history row of the running attempt: the one the record holds, or, for a record read
// without its history (a claim's, an orphan scan's), one made from the row's own fields.
AttemptRecord& current_attempt(JobRecord& job) {
  auto it = std::find_if(job.attempts.begin(), job.attempts.end(),
                         [&](const AttemptRecord& a) { return a.number == job.attempt; });
  if (it != job.attempts.end()) return *it;
  return job.attempts.emplace_back(AttemptRecord{job.attempt, job.node, job.device, job.start_ms});
}

void end_attempt(JobRecord& job, const AttemptEnd& end) {
  if (job.state != JobState::kRunning || job.attempt < 1) return;
  AttemptRecord& attempt = current_attempt(job);
  attempt.end_ms = end.now;
  attempt.outcome = end.outcome;
  attempt.error = end.error;
}

AttemptOutcome outcome_of(JobState state) {
  if (state == JobState::kSucceeded) return AttemptOutcome::kSucceeded;
  if (state == JobState::kCancelled) return AttemptOutcome::kCancelled;
  return AttemptOutcome::kFailed;
}

}  // namespace

void start_attempt(JobRecord& job, const std::string& device, const std::string& node,
                   int64_t now) {
  job.state = JobState::kRunning;
  job.attempt += 1;
  job.start_ms = now;
  job.end_ms = 0;
  job.device = device;
  job.node = node;
  job.progress = {};
  job.engines = {};
  job.report.reset();
  job.error = {};
  job.retry_delay_ms = 0;
  // A number given back by a shutdown starts again: its row is this attempt's now.
  std::erase_if(job.attempts, [&](const AttemptRecord& a) { return a.number == job.attempt; });
  job.attempts.push_back({job.attempt, node, device, now});
}

void requeue(JobRecord& job, AttemptUse use, const AttemptEnd& end, int64_t retry_delay_ms) {
  end_attempt(job, end);
  job.state = JobState::kQueued;
  if (use == AttemptUse::kGivenBack) job.attempt -= 1;
  job.start_ms = 0;
  job.end_ms = 0;
  job.device.clear();
  job.node.clear();
  job.progress = {};
  job.engines = {};
  job.report.reset();
  job.error = {};
  job.retry_delay_ms = retry_delay_ms;
}

void finish(JobRecord& job, JobState state, Status error, std::optional<JobReport> report,
            int64_t now, std::optional<AttemptOutcome> outcome) {
  end_attempt(job, {outcome.value_or(outcome_of(state)), error, now});
  job.state = state;
  job.end_ms = now;
  job.error = std::move(error);
  job.report = std::move(report);
  job.engines = {};
}

void meter_attempt(JobRecord& job, int number, ResourceSeconds usage) {
  for (AttemptRecord& attempt : job.attempts)
    if (attempt.number == number && attempt.end_ms > 0) attempt.usage = std::move(usage);
}

}  // namespace tc::daemon
