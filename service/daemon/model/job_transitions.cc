#include "service/daemon/model/job_transitions.h"

namespace tc::daemon {

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
}

void requeue(JobRecord& job, AttemptUse use) {
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
}

void finish(JobRecord& job, JobState state, Status error, std::optional<JobReport> report,
            int64_t now) {
  job.state = state;
  job.end_ms = now;
  job.error = std::move(error);
  job.report = std::move(report);
  job.engines = {};
}

}  // namespace tc::daemon
