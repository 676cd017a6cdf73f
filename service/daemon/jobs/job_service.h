// The jobs as clients see them (the RPCs): admission (policy, queue bound, idempotency), reads
// with a running job's live progress, cancel, and watch subscriptions. Holds no lock of its own;
// every store call is made outside the other parts' locks.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "service/daemon/jobs/dispatcher.h"
#include "service/daemon/jobs/manager_options.h"
#include "service/daemon/jobs/running_jobs.h"
#include "service/daemon/jobs/watch_hub.h"
#include "service/daemon/model/api_status.h"
#include "service/daemon/model/tenant.h"
#include "service/daemon/store/job_queue.h"

namespace tc::daemon {

struct NewJob {
  JobSpec spec;
  int priority = 0;
  std::map<std::string, std::string> labels;
  std::string request_id;
  std::string webhook_url;  // checked by check_webhook_url
};

struct JobPage {
  std::vector<JobRecord> jobs;
  std::string next_page_token;
  // Keeps the first `count` jobs (count >= 1); the next page starts after the last one kept.
  void cut(size_t count);
};

struct ServiceParts {
  const ManagerOptions& options;
  JobQueue& jobs;
  RunningJobs& running;
  WatchHub& hub;
  Dispatcher& dispatcher;
};

// A store error as the API says it: UNAVAILABLE (to retry) when retryable, INTERNAL otherwise.
ApiStatus store_failure(const Status& status);

class JobService {
 public:
  explicit JobService(ServiceParts parts) : parts_(parts) {}

  // Every call acts for `caller` (model/tenant.h). A job of another tenant is, to a caller who is
  // not an admin, NOT_FOUND with the message an unknown id gets: its existence is not told.
  // create: the job is the caller's tenant's, its request_id looked up within that tenant, its
  // paths confined to the tenant's media roots (an admin's: the node's).
  ApiStatus create(const Caller& caller, NewJob request, JobRecord& job);
  ApiStatus get(const Caller& caller, const std::string& id, JobRecord& job);
  // The caller's tenant's jobs; an admin's: every tenant's.
  ApiStatus list(const Caller& caller, std::optional<JobState> state, int page_size,
                 const std::string& page_token, JobPage& page);
  ApiStatus cancel(const Caller& caller, const std::string& id, JobRecord& job);
  // Registers `watcher` and sends it the job as it is now (kSnapshot) before any later event.
  ApiStatus watch(const Caller& caller, const std::string& id, std::shared_ptr<JobWatcher> watcher);
  void unwatch(const std::string& id, const JobWatcher* watcher);

 private:
  ApiStatus admit(const Caller& caller, NewJob& request, JobRecord& job);  // past the checks
  // One look at a job being cancelled; none when it changed state meanwhile (look again).
  std::optional<ApiStatus> cancel_once(const Caller& caller, const std::string& id, JobRecord& job);
  std::optional<ApiStatus> cancel_running(const std::string& id, JobRecord& job);
  Result<bool> cancel_queued(JobRecord& job);

  ServiceParts parts_;
};

}  // namespace tc::daemon
