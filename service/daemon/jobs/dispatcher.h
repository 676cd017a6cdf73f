// The claim loop: while the scheduler has a device with room, claims the best queued job it can
// run from the store (job_store.h claim), places it and hands it to `start`; purges jobs past
// retention once a minute. Its lock guards the scheduler and the loop's flags and is never held
// over the store: the claim, the nodes' offers and the purge run outside it.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "service/daemon/jobs/backend_wait.h"
#include "service/daemon/jobs/manager_options.h"
#include "service/daemon/jobs/running_jobs.h"
#include "service/daemon/policy/scheduler.h"
#include "service/daemon/store/job_queue.h"
#include "service/daemon/store/node_registry.h"

namespace tc::daemon {

// A spec's backend and device, as the scheduler places it.
QueuedJob queued_job(const JobRecord& job);

// The node-level decisions `job` runs under on device `device` (the scheduler's index): the
// node's settings and the scheduler's placement, made here once for its worker.
NodeDecisions decide(const NodeSettings& node, const Scheduler& scheduler, const JobRecord& job,
                     int device);

class Dispatcher {
 public:
  // Starts the attempt of a job just claimed, in its running form, as `decisions` place it.
  using StartJob = std::function<void(JobRecord job, NodeDecisions decisions)>;
  // `shared`: other nodes claim from the same queue (their offers are looked at before a claim).
  Dispatcher(const ManagerOptions& options, JobQueue& jobs, NodeRegistry& nodes, bool shared,
             Scheduler scheduler, RunningJobs& running);
  ~Dispatcher();  // ends the loop

  void start(StartJob start_job);
  void stop();  // ends the loop; returns once it has
  void wake();  // a slot or a job appeared: look again now
  bool accepting() const { return accepting_; }
  void stop_accepting() { accepting_ = false; }

  // A job's slot back, with what it used (the load model learns from it).
  void release(int device, const std::string& job, const std::optional<metrics::EngineUsage>& used);
  // A running job's last sampling interval.
  void sample(const std::string& job, const metrics::EngineUsage& live);
  const std::vector<SchedDevice>& devices() const { return devices_; }  // fixed
  std::vector<SchedDevice> devices_now() const;
  // Which backends the live nodes offer (this one's included). A node silent for three leases
  // is not live. In a cluster, a job whose backend no live node offers is not claimed: it
  // waits (backend_wait.h). An error: the store could not be read.
  Status learn_offers();
  // As the last learn_offers() saw them.
  BackendOffers offers() const;
  bool shared() const { return shared_; }
  // Why a queued job waits for a node (backend_wait.h), for its waiting_reason; empty when it
  // does not, and always with a store no other node shares (this node's worker refuses what it
  // cannot run). No store read: the watch hub asks it under its lock.
  std::string waiting_reason(const JobRecord& job) const;

 private:
  void loop();
  bool claim_one();  // claims and starts a job; false when there was none
  bool take(JobRecord& job, std::optional<Notification>& notice, int& device,
            std::optional<NodeDecisions>& decisions);
  void purge_expired();
  void note_claim(const Status& status);

  const ManagerOptions& options_;
  JobQueue& jobs_;
  NodeRegistry& nodes_;
  const bool shared_;
  RunningJobs& running_;
  const std::vector<SchedDevice> devices_;
  StartJob start_job_;
  std::atomic<bool> accepting_{true};  // false once shutdown began

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  Scheduler scheduler_;
  BackendOffers offers_;  // what the nodes offer (learn_offers())
  std::chrono::steady_clock::time_point offers_learned_{};
  bool stopping_ = false;       // the loop ends
  bool changed_ = false;        // a slot or a job appeared since the loop last looked
  bool claim_failing_ = false;  // the last claim could not reach the store
  std::thread thread_;
};

}  // namespace tc::daemon
