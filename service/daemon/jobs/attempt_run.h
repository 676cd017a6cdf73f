// One attempt of a job on this node, on its own thread: a worker (a warm one from the pool, or
// one started now) is given the job and supervised to its end; its progress is published and,
// with a shared store, written; it is sampled; the store's fence decides whether it may
// publish its outputs; its end is written (job_transitions.h) and published. Every lock it takes
// (the attempt's, the registry's, the hub's, the counters', the dispatcher's) is held for a copy
// or an update, never over the store or a worker.
#pragma once

#include <memory>
#include <optional>

#include "pipeline/metrics/sampler.h"
#include "service/daemon/jobs/attempt_log.h"
#include "service/daemon/jobs/dispatcher.h"
#include "service/daemon/jobs/manager_options.h"
#include "service/daemon/jobs/node_counters.h"
#include "service/daemon/jobs/running_jobs.h"
#include "service/daemon/jobs/watch_hub.h"
#include "service/daemon/store/job_queue.h"
#include "service/daemon/store/lease_table.h"
#include "service/daemon/worker/worker_pool.h"

namespace tc::daemon {

// The worker's report with its engines: the sampler's job average, its cpu_cores taken from the
// report's own cpu_s / wall_s (the worker's rusage, exact) when both are there.
JobReport attach_engine_usage(JobReport report, metrics::EngineUsage usage);

// What a finished job teaches its device's load estimate (load_model.h): a succeeded job's
// usage as its report keeps it, a failed one's sampled average, nothing for a job never sampled.
std::optional<metrics::EngineUsage> usage_to_learn(const WorkerOutcome& outcome,
                                                   const metrics::EngineUsage& sampled);

struct AttemptParts {
  const ManagerOptions& options;
  JobQueue& jobs;
  LeaseTable& leases;
  bool shared;  // other nodes watch its progress through the store
  RunningJobs& running;
  WatchHub& hub;
  NodeCounters& counters;
  Dispatcher& dispatcher;
  JobLogs& logs;  // each attempt's own log lines (attempt_log.h)
};

class AttemptRunner {
 public:
  explicit AttemptRunner(AttemptParts parts) : parts_(parts) {}

  void start_pool();  // the warm workers (worker_pool.h), before the first attempt
  void stop_pool();   // after the last attempt's thread ended
  std::vector<WorkerPool::Counts> pool_counts();

  // The dispatcher's StartJob: `job` claimed in its running form, to run as `decisions` say.
  void start(JobRecord job, NodeDecisions decisions);

 private:
  struct Pace;  // when progress was last published and stored
  void run(const WorkerJob& job, const NodeSettings& node, Attempt& attempt);
  WorkerOutcome supervise_worker(WorkerProcess& worker, Attempt& attempt, bool warm,
                                 metrics::EngineUsage& engines, AttemptLog& log);
  // A worker's under `node`, the device it opens aside (the pool's workers open theirs).
  WorkerLaunch worker_launch(const NodeSettings& node) const;
  // A warm worker of the attempt's device when one is ready (started under the same node
  // settings), else one started now under `node`; given the job.
  Result<std::unique_ptr<WorkerProcess>> start_worker(const WorkerJob& job,
                                                      const NodeSettings& node, Attempt& attempt,
                                                      bool& warm);
  // The fence (job_store.h hold_lease): may this attempt publish its outputs?
  Status may_publish(Attempt& attempt);
  Status fence_answer(Attempt& attempt, Fence fence);  // the gate's answer, as the worker hears it
  // `ran`: its worker started (and so is metered).
  JobRecord finished_record(const Attempt& attempt, const WorkerOutcome& outcome,
                            const metrics::EngineUsage& engines, bool ran);
  void store_final(Attempt& attempt, const JobRecord& job);
  std::unique_ptr<metrics::JobSampler> make_sampler(const Attempt& attempt, int pid,
                                                    bool warm) const;
  void on_sample(Attempt& attempt, const metrics::JobSampler& sampler);
  void on_progress(Attempt& attempt, const Progress& progress, Pace& pace);
  void store_progress(Attempt& attempt, const JobRecord& job, Pace& pace);

  AttemptParts parts_;
  std::unique_ptr<WorkerPool> pool_;
};

}  // namespace tc::daemon
