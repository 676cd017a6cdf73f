#include "service/daemon/jobs/job_writes.h"

namespace tc::daemon {

Result<bool> save_job(JobQueue& jobs, const JobJson& webhook_body, const JobRecord& job,
                      const std::optional<RowState>& expected) {
  if (job.webhook_url.empty() || !webhook_body) return jobs.write(job, expected, nullptr);
  Notification notice = notice_of(job, webhook_body(job));
  return jobs.write(job, expected, &notice);
}

}  // namespace tc::daemon
