#include "service/daemon/jobs/backend_wait_expiry.h"

#include <spdlog/spdlog.h>

#include "service/daemon/jobs/job_writes.h"
#include "service/daemon/model/job_transitions.h"

namespace tc::daemon {
namespace {

constexpr size_t kPage = 500;

// Fails `job` if it has waited out the bound; a job another writer moved on first is left.
Status end_wait(const ClusterParts& parts, const BackendOffers& offers, JobRecord job) {
  std::optional<std::string> backend = awaited_backend(job, offers);
  double wait_s = parts.options.capable_node_wait_s;
  int64_t now = now_ms();
  if (!backend || waited_ms(job, *backend, offers, now) < static_cast<int64_t>(wait_s * 1000))
    return {};
  RowState expected{JobState::kQueued, job.attempt, false};
  finish(job, JobState::kFailed, wait_spent_error(*backend, wait_s), std::nullopt, now);
  TC_ASSIGN_OR_RETURN(bool written,
                      save_job(parts.store.jobs(), parts.options.webhook_body, job, expected));
  if (!written) return {};
  spdlog::warn("job {}: {}", job.id, job.error.message());
  parts.counters.count_finished(job);
  parts.hub.publish(EventKind::kState, job);
  return {};
}

}  // namespace

Status fail_jobs_past_backend_wait(const ClusterParts& parts) {
  if (!parts.dispatcher.shared() || parts.options.capable_node_wait_s <= 0) return {};
  BackendOffers offers = parts.dispatcher.offers();
  int64_t before = 0;
  while (true) {
    TC_ASSIGN_OR_RETURN(
        std::vector<JobRecord> page,
        parts.store.jobs().list(JobState::kQueued, before, static_cast<int>(kPage)));
    for (JobRecord& job : page) {
      before = job.seq;
      TC_RETURN_IF_ERROR(end_wait(parts, offers, std::move(job)));
    }
    if (page.size() < kPage) return {};
  }
}

}  // namespace tc::daemon
