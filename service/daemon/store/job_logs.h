// The job store's log role: each job's own log lines (model/job_log.h), appended in batches by
// the attempt running it and read by GetJobLogs. The store keeps the bound: an append that takes
// an attempt past it drops the oldest lines of its tail (never its head), in the same
// transaction. A job's lines go with it when retention purges it (JobQueue::purge_ended_before).
#pragma once

#include <string>
#include <vector>

#include "pipeline/core/status.h"
#include "service/daemon/model/job_log.h"

namespace tc::daemon {

class JobLogs {
 public:
  virtual ~JobLogs() = default;

  // Adds `lines` (one attempt's, seq ascending, past every stored one) to job `id`'s log.
  virtual Status append_log(const std::string& id, int attempt,
                            const std::vector<JobLogLine>& lines) = 0;
  // Job `id`'s lines of `attempt` (0: every attempt), oldest first; truncated when an attempt's
  // middle was dropped. No lines for a job that has none (or is unknown).
  virtual Result<JobLog> read_log(const std::string& id, int attempt) = 0;
};

}  // namespace tc::daemon
