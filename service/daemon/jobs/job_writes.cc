#include "service/daemon/jobs/job_writes.h"

namespace tc::daemon {

Result<bool> save_job(JobQueue& jobs, const JobJson& job_json, const JobRecord& job,
                      const std::optional<RowState>& expected) {
  if (job.webhook_url.empty() || !job_json) return jobs.write(job, expected, nullptr);
  Notification notice = notice_of(job, job_json(job));
  return jobs.write(job, expected, &notice);
}

}  // namespace tc::daemon
