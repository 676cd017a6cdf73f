// The daemon's job logic, free of gRPC: admits jobs (policy, queue bound, idempotency), keeps
// them in the store, claims queued jobs from it while the scheduler has a free slot and starts
// a worker per job on a job thread, publishes state and progress to watchers, cancels, and
// drains on shutdown. The queue is the store's: with PostgreSQL several daemons (nodes) claim
// from it, each running job under a lease its node renews; a dead node's jobs are taken over
// with attempt + 1, and only the attempt holding the lease publishes (README, Cluster). RPC
// handlers call it and return at once; media work happens in workers.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "pipeline/hw/devices.h"
#include "pipeline/metrics/sampler.h"
#include "service/daemon/model/api_status.h"
#include "service/daemon/model/job_record.h"
#include "service/daemon/model/node_metrics.h"
#include "service/daemon/policy/request_policy.h"
#include "service/daemon/policy/scheduler.h"
#include "service/daemon/store/job_store.h"
#include "service/daemon/webhook/webhook_notice.h"
#include "service/daemon/worker/worker_pool.h"
#include "service/daemon/worker/worker_supervisor.h"

namespace tc::daemon {

enum class EventKind { kSnapshot, kState, kProgress };

// Receives a job's events, in order, on whichever thread publishes them. Must not block and
// must not call back into the manager.
class JobWatcher {
 public:
  virtual ~JobWatcher() = default;
  virtual void on_event(EventKind kind, const JobRecord& job) = 0;
};

struct ManagerOptions {
  std::string worker_executable;
  std::string node_id = "node";  // this daemon in the store (--node-id)
  int max_queue = 100;           // queued jobs, in the whole store
  double lease_s = 30;           // a running job's lease; renewed every lease_s / 3
  double claim_poll_s = 2;       // the claim loop's safety net besides wake-ups
  RequestPolicy policy;
  SuperviseOptions supervise;
  long long worker_memory_mb = 0;
  bool worker_landlock = false;
  int gop_parallel = 0;      // libx264 encoders per output: 0 = auto (DaemonConfig)
  std::string gpu_cache;     // the workers' GPU kernel cache (worker_main.h, --gpu-cache)
  std::string devices_json;  // the node's inventory, discovered once, handed to every worker
  WarmOptions warm;          // workers started ahead of jobs (worker_pool.h)
  int max_attempts = 3;
  double retention_hours = 168;
  std::string proc_root = "/proc";  // workers' fdinfo and stat are read under it
  double sample_interval_s = 0.5;
  // Webhooks (README, Webhooks): set when a secret is configured; jobs with a webhook_url are
  // refused without it. Each state change of such a job is stored with its notice.
  JobJson job_json;
};

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

class JobManager {
 public:
  JobManager(ManagerOptions options, JobStore store, Scheduler scheduler);
  ~JobManager();
  JobManager(const JobManager&) = delete;
  JobManager& operator=(const JobManager&) = delete;

  // Takes back the jobs this node's previous process left RUNNING (re-queued, or failed after
  // max_attempts), removes the temp files failed and cancelled jobs left (ended_partials.cc),
  // then starts claiming.
  Status start();

  ApiStatus create(NewJob request, JobRecord& job);
  ApiStatus get(const std::string& id, JobRecord& job);
  ApiStatus list(std::optional<JobState> state, int page_size, const std::string& page_token,
                 JobPage& page);
  ApiStatus cancel(const std::string& id, JobRecord& job);
  // Registers `watcher` and sends it the job as it is now (kSnapshot) before any later event.
  ApiStatus watch(const std::string& id, std::shared_ptr<JobWatcher> watcher);
  void unwatch(const std::string& id, const JobWatcher* watcher);

  // The scheduler's devices, with their running counts now.
  std::vector<SchedDevice> devices();
  // Jobs by state, queue, devices, running jobs' engines, totals: what /metrics shows.
  NodeSnapshot node_snapshot();

  // The node's beat (node_heartbeat.h): writes its row, renews its leases (stopping jobs it no
  // longer holds, cancelling those cancelled through another node), takes over jobs whose lease
  // ran out, and learns which backends the live nodes offer. An error: the store is unreachable.
  Status beat(const NodeRecord& node);
  Result<std::vector<NodeRecord>> nodes() { return store_.nodes().list(); }

  // Refuses new jobs from now on; running jobs may finish for `grace_s`, then are stopped
  // and left QUEUED for the next start. Returns when every job thread has ended.
  void shutdown(double grace_s);

 private:
  struct Running {
    JobRecord job;  // as published; progress lives here while it runs
    RowState row;   // what the store holds for it: every write expects it
    std::thread thread;
    std::atomic<int> stop{kStopNone};
    std::chrono::steady_clock::time_point last_published{};
    std::chrono::steady_clock::time_point last_stored{};  // progress, in a shared store
    int device = 0;
    BackendKind backend = BackendKind::kSoftware;  // the device's
    std::string device_path;
    bool warm_worker = false;  // its worker was set up before the job (worker_pool.h)
    bool done = false;
  };

  Status take_orphans(const std::string& own_node);
  Status remove_ended_partials();
  Status requeue_orphan(JobRecord job, bool lease_expired);
  void dispatch_loop();
  bool claim_one();  // mutex_ held
  bool take_job(JobRecord& job, std::optional<Notification>& notice, int& device);
  void start_job(JobRecord job, int device);
  void run_job_thread(JobSpec spec, Running* running);
  WorkerLaunch worker_launch() const;  // every worker's, the device it opens aside
  // A warm worker of the job's device when one is ready, else one started now; given the job.
  Result<std::unique_ptr<WorkerProcess>> start_worker(JobSpec spec, Running& running);
  // The fence (lease_table.h hold_lease): may this attempt publish its outputs?
  Status may_publish(Running& running);
  JobRecord finished_record(const Running& running, const WorkerOutcome& outcome,
                            const metrics::EngineUsage& engines);
  void store_final(Running& running, const JobRecord& job);
  std::unique_ptr<metrics::JobSampler> make_sampler(const Running& running, int pid) const;
  void on_sample(Running& running, const metrics::JobSampler& sampler);
  void count_finished(const JobRecord& job);    // mutex_ held
  void count_quality(const JobReport& report);  // mutex_ held
  void on_progress(const std::string& id, const Progress& progress);
  void store_progress(Running& running);               // mutex_ held
  void publish(EventKind kind, const JobRecord& job);  // mutex_ held
  void overlay_progress(JobRecord& job);               // mutex_ held
  void reap_finished_threads();                        // mutex_ held
  void purge_expired();
  void renew_leases();
  Status learn_offers();                                                  // mutex_ held
  void stop_running(const std::string& id, int reason, const char* why);  // mutex_ held
  // Other nodes' doings (StoreEvents), on the listener thread.
  void listen_loop();
  void on_store_event(const StoreEvent& event);
  void refresh_remote_watch(const std::string& id);  // mutex_ held
  // The store's write, expecting the row as `expected` says, with a notice when the job has a
  // webhook; false when another writer moved the row on.
  Result<bool> save(const JobRecord& job, const std::optional<RowState>& expected);
  Result<bool> cancel_queued(JobRecord& job);  // mutex_ held

  ManagerOptions options_;
  JobStore store_;

  std::mutex mutex_;
  std::condition_variable wake_;
  Scheduler scheduler_;
  std::map<std::string, std::unique_ptr<Running>> running_;
  std::multimap<std::string, std::shared_ptr<JobWatcher>> watchers_;
  // Jobs watched here and run elsewhere: the state last published for each.
  std::map<std::string, JobState> remote_watched_;
  std::set<std::string> offered_anywhere_;  // backends the live nodes offer (learn_offers())
  std::chrono::steady_clock::time_point offers_learned_{};
  std::map<std::string, DeviceTotals> device_totals_;       // by device name
  std::map<std::string, DurationHistogram> job_durations_;  // by final state
  std::map<std::string, PsnrHistogram> output_psnr_;        // --quality outputs, by backend
  std::map<std::string, SsimHistogram> output_ssim_;

  bool accepting_ = true;       // false once shutdown began
  bool stopping_ = false;       // the dispatcher ends
  bool changed_ = false;        // a slot or a job appeared since the dispatcher last looked
  bool claim_failing_ = false;  // the last claim could not reach the store
  void wake_dispatcher();       // mutex_ held
  std::thread dispatcher_;
  std::unique_ptr<StoreEvents> events_;  // null with a store no other node shares
  std::thread listener_;
  std::unique_ptr<WorkerPool> pool_;  // from start(); job threads take from it
};

// A spec's backend and device, as the scheduler places it.
QueuedJob queued_job(const JobRecord& job);

// Removes the partial outputs attempt `attempt` of a job may have left below the media roots
// (`.NAME.aN.partial`: io::partial_name), and no other attempt's.
void remove_partial_outputs(const JobSpec& spec, int attempt,
                            const std::vector<std::string>& media_roots);

// The worker's report with its engines: the sampler's job average, its cpu_cores taken from the
// report's own cpu_s / wall_s (the worker's rusage, exact) when both are there.
JobReport attach_engine_usage(JobReport report, metrics::EngineUsage usage);

// What a finished job teaches its device's load estimate (load_model.h): a succeeded job's
// usage as its report keeps it, a failed one's sampled average, nothing for a job never sampled.
std::optional<metrics::EngineUsage> usage_to_learn(const WorkerOutcome& outcome,
                                                   const metrics::EngineUsage& sampled);

}  // namespace tc::daemon
