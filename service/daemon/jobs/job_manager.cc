#include "service/daemon/jobs/job_manager.h"

#include <spdlog/spdlog.h>

namespace tc::daemon {

JobManager::JobManager(ManagerOptions options, JobStore store, Scheduler scheduler)
    : options_(std::move(options)),
      store_(std::move(store)),
      hub_([this](const JobRecord& job) { return dispatcher_.waiting_reason(job); }),
      dispatcher_(options_, store_.jobs(), store_.nodes(), store_.shared(), std::move(scheduler),
                  running_),
      runner_({options_, store_.jobs(), store_.leases(), store_.shared(), running_, hub_, counters_,
               dispatcher_, store_.logs()}),
      service_({options_, store_.jobs(), running_, hub_, dispatcher_}),
      cluster_({options_, store_, running_, hub_, counters_, dispatcher_}) {}

ApiStatus JobManager::logs(const Caller& caller, const std::string& id, int attempt, JobLog& log) {
  if (attempt < 0)
    return {ApiCode::kInvalidArgument, ApiReason::kInvalidField, "attempt", "must not be negative"};
  JobRecord job;
  TC_API_RETURN_IF_ERROR(service_.get(caller, id, job));
  Result<JobLog> read = store_.logs().read_log(id, attempt);
  if (!read.is_ok()) return store_failure(read.status());
  log = std::move(*read);
  return {};
}

JobManager::~JobManager() {
  dispatcher_.stop_accepting();
  dispatcher_.stop();
  cluster_.stop();
  running_.stop_all(kStopShutdown);
  running_.wait_all_ended(-1);
  running_.reap();
  runner_.stop_pool();  // no job thread takes from it any more
}

Status JobManager::start() {
  TC_RETURN_IF_ERROR(cluster_.take_orphans(options_.node_id));
  TC_RETURN_IF_ERROR(remove_ended_partials(store_.jobs(), options_.policy.roots));
  TC_RETURN_IF_ERROR(dispatcher_.learn_offers());
  runner_.start_pool();
  dispatcher_.start([this](JobRecord job, NodeDecisions decisions) {
    runner_.start(std::move(job), std::move(decisions));
  });
  cluster_.listen();
  return {};
}

NodeSnapshot JobManager::node_snapshot() {
  NodeSnapshot snapshot;
  for (JobState state : {JobState::kQueued, JobState::kRunning, JobState::kSucceeded,
                         JobState::kFailed, JobState::kCancelled}) {
    Result<int> count = store_.jobs().count_in_state(state);
    snapshot.jobs_by_state[std::string(state_name(state))] = count.is_ok() ? *count : 0;
  }
  snapshot.queue_depth = snapshot.jobs_by_state["queued"];
  for (const SchedDevice& d : dispatcher_.devices_now()) {
    NodeSnapshot::Device device;
    device.name = d.name;
    device.backend = std::string(name_of(d.backend));
    device.slots = d.slots;
    device.running = d.running;
    device.load = d.load;
    snapshot.devices.push_back(std::move(device));
  }
  std::vector<WorkerPool::Counts> warm = runner_.pool_counts();
  for (size_t i = 0; i < warm.size() && i < snapshot.devices.size(); ++i) {
    snapshot.devices[i].warm_ready = warm[i].ready;
    snapshot.devices[i].warm_lost = warm[i].lost;
    snapshot.devices[i].warm_failed_setup = warm[i].failed_setup;
  }
  snapshot.running = running_.live();
  for (const NodeSnapshot::RunningJob& job : snapshot.running) {
    if (!job.live.available) continue;
    for (NodeSnapshot::Device& device : snapshot.devices)
      if (device.name == job.device)
        for (const metrics::EngineBusy& e : job.live.engines)
          device.engine_busy_percent[e.engine] += e.busy_percent;
  }
  counters_.fill(snapshot);
  return snapshot;
}

void JobManager::shutdown(double grace_s) {
  dispatcher_.stop_accepting();
  if (!running_.wait_all_ended(0))
    spdlog::info("shutdown: waiting up to {} s for running jobs", grace_s);
  if (!running_.wait_all_ended(grace_s)) running_.stop_all(kStopShutdown);
  running_.wait_all_ended(-1);
  dispatcher_.stop();
  cluster_.stop();
  // A claim that was in flight when shutdown began may have started one more attempt.
  running_.stop_all(kStopShutdown);
  running_.wait_all_ended(-1);
  running_.reap();
}

}  // namespace tc::daemon
