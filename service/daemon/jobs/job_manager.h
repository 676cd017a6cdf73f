// The daemon's jobs, free of gRPC, composed of parts that each own their state and lock, none
// held over the store: the RPC-facing service (job_service.h: admit, read, cancel, watch), the
// watch hub (watch_hub.h), the claim loop with the scheduler (dispatcher.h), one thread per
// running attempt (attempt_run.h, running_jobs.h), cluster membership with leases
// (cluster_membership.h) and the node's counters (node_counters.h). The queue is the store's:
// with PostgreSQL several daemons (nodes) claim from it, each running job under a lease its node
// renews; a dead node's jobs are taken over with attempt + 1, and only the attempt holding the
// lease publishes (README, Cluster). RPC handlers call it and return at once; media work
// happens in workers.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "service/daemon/jobs/attempt_run.h"
#include "service/daemon/jobs/cluster_membership.h"
#include "service/daemon/jobs/dispatcher.h"
#include "service/daemon/jobs/job_service.h"
#include "service/daemon/jobs/manager_options.h"
#include "service/daemon/jobs/node_counters.h"
#include "service/daemon/jobs/partial_outputs.h"
#include "service/daemon/jobs/running_jobs.h"
#include "service/daemon/jobs/watch_hub.h"
#include "service/daemon/model/node_metrics.h"
#include "service/daemon/store/job_store.h"

namespace tc::daemon {

class JobManager {
 public:
  JobManager(ManagerOptions options, JobStore store, Scheduler scheduler);
  ~JobManager();
  JobManager(const JobManager&) = delete;
  JobManager& operator=(const JobManager&) = delete;

  // Takes back the jobs this node's previous process left RUNNING (re-queued, or failed after
  // max_attempts), removes the temp files failed and cancelled jobs left (partial_outputs.h),
  // then starts claiming.
  Status start();

  // Each call acts for `caller` (model/tenant.h; job_service.h says what that confines). The
  // overloads without one act as the admin of tenant "default", as a daemon without tenants
  // does for every client.
  ApiStatus create(const Caller& caller, NewJob request, JobRecord& job) {
    return service_.create(caller, std::move(request), job);
  }
  // A queued job waiting for a node that offers its backend says so in its waiting_reason
  // (backend_wait.h), here, in list() and in watch()'s events.
  ApiStatus get(const Caller& caller, const std::string& id, JobRecord& job) {
    return service_.get(caller, id, job);
  }
  ApiStatus list(const Caller& caller, std::optional<JobState> state, int page_size,
                 const std::string& page_token, JobPage& page) {
    return service_.list(caller, state, page_size, page_token, page);
  }
  ApiStatus cancel(const Caller& caller, const std::string& id, JobRecord& job) {
    return service_.cancel(caller, id, job);
  }
  // Job `id`'s own log (store/job_logs.h), of `attempt` (0: every one); NOT_FOUND for an unknown
  // id (or another tenant's). Read from the store on the caller's thread, no lock of the
  // manager's held.
  ApiStatus logs(const Caller& caller, const std::string& id, int attempt, JobLog& log);
  ApiStatus watch(const Caller& caller, const std::string& id,
                  std::shared_ptr<JobWatcher> watcher) {
    return service_.watch(caller, id, std::move(watcher));
  }
  void unwatch(const std::string& id, const JobWatcher* watcher) { service_.unwatch(id, watcher); }

  ApiStatus create(NewJob request, JobRecord& job) {
    return create(Caller::default_admin(), std::move(request), job);
  }
  ApiStatus get(const std::string& id, JobRecord& job) {
    return get(Caller::default_admin(), id, job);
  }
  ApiStatus list(std::optional<JobState> state, int page_size, const std::string& page_token,
                 JobPage& page) {
    return list(Caller::default_admin(), state, page_size, page_token, page);
  }
  ApiStatus cancel(const std::string& id, JobRecord& job) {
    return cancel(Caller::default_admin(), id, job);
  }
  ApiStatus logs(const std::string& id, int attempt, JobLog& log) {
    return logs(Caller::default_admin(), id, attempt, log);
  }
  ApiStatus watch(const std::string& id, std::shared_ptr<JobWatcher> watcher) {
    return watch(Caller::default_admin(), id, std::move(watcher));
  }

  // The tenants and their keys (tenant_directory.h), for the API's authentication and the
  // admin RPCs.
  TenantDirectory& tenants() { return store_.tenants(); }
  UsageLedger* usage() { return store_.usage(); }  // null when the store was wired without one
  // The node's media roots (canonical): a tenant's must lie in them.
  const std::vector<std::string>& media_roots() const { return options_.policy.roots; }

  // The scheduler's devices, with their running counts now.
  std::vector<SchedDevice> devices() { return dispatcher_.devices_now(); }
  // Jobs by state, queue, devices, running jobs' engines, totals: what /metrics shows. The
  // store's counts are read before any part's lock is taken.
  NodeSnapshot node_snapshot();

  Status beat(const NodeRecord& node) { return cluster_.beat(node); }
  // Every node sharing the store, those silent longer than a lease marked gone.
  Result<std::vector<NodeRecord>> nodes() {
    TC_ASSIGN_OR_RETURN(std::vector<NodeRecord> nodes, store_.nodes().list());
    for (NodeRecord& node : nodes) node.gone = node.silent_ms > lease_ms(options_.lease_s);
    return nodes;
  }

  // Refuses new jobs from now on; running jobs may finish for `grace_s`, then are stopped
  // and left QUEUED for the next start. Returns when every job thread has ended.
  void shutdown(double grace_s);

 private:
  ManagerOptions options_;
  JobStore store_;
  WatchHub hub_;
  NodeCounters counters_;
  RunningJobs running_;
  Dispatcher dispatcher_;
  AttemptRunner runner_;
  JobService service_;
  ClusterMembership cluster_;
};

}  // namespace tc::daemon
