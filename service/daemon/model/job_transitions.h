// A job's state changes, one function each, on the record itself. Each sets every field that
// belongs to an attempt, so that no path leaves a field of an earlier attempt behind (a
// re-queued job shows no device, node or start time; a started one no old progress, error or
// report), and each keeps the job's attempt history (attempt_record.h): a start adds the
// attempt, an end records its end and outcome. The fields fixed at admission (id, request_id,
// seq, priority, labels, spec, create_ms, webhook_url) are never touched here.
#pragma once

#include <optional>
#include <string>

#include "pipeline/core/status.h"
#include "service/daemon/model/job_record.h"

namespace tc::daemon {

// QUEUED -> RUNNING: attempt + 1, on `device` (the scheduler's name for it) of `node`, started
// at `now`; nothing of an earlier attempt stays.
void start_attempt(JobRecord& job, const std::string& device, const std::string& node, int64_t now);

// Whether an attempt cut short uses up one of the job's max_attempts.
enum class AttemptUse {
  kSpent,      // it ran and was cut off (its node died) or failed retryably: next is attempt + 1
  kGivenBack,  // stopped by this daemon's shutdown, not the job's fault: the next start reuses it
};

// How the running attempt ended, for its history row.
struct AttemptEnd {
  AttemptOutcome outcome = AttemptOutcome::kFailed;
  Status error;
  int64_t now = 0;
};

// RUNNING -> QUEUED: the attempt ended as `end` says, without a job outcome; its device, node,
// start and end times, progress, live engines, error and report all go, as for a job never
// started. `retry_delay_ms` > 0: the job is claimed no earlier than that after the write.
void requeue(JobRecord& job, AttemptUse use, const AttemptEnd& end, int64_t retry_delay_ms = 0);

// -> SUCCEEDED, FAILED or CANCELLED, ended at `now`. `error` says why a failed or cancelled job
// ended (ok for a succeeded one); `report` is a succeeded job's. The attempt's device, node,
// start time and last progress stay: they say where and how far it ran. Live engines go: they
// describe a running worker only. A running attempt ends with `outcome`, or the state's own
// (succeeded, failed, cancelled) when none is given.
void finish(JobRecord& job, JobState state, Status error, std::optional<JobReport> report,
            int64_t now, std::optional<AttemptOutcome> outcome = std::nullopt);

// Records what the ended attempt `number` measurably used (attempt_usage.h) on its history row;
// nothing when the record holds no ended attempt of that number.
void meter_attempt(JobRecord& job, int number, ResourceSeconds usage);

}  // namespace tc::daemon
