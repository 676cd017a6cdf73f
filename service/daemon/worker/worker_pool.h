// Warm workers: per device, a few `transcoded --worker` processes started ahead of any job, set
// up (limits, sandbox, libraries loaded, the device context open) and waiting on stdin for one
// job each (worker_main.h). A job takes a ready one and skips process start, library load and
// device open: on the 2-core VM, starting the binary alone took 110-180 ms (233 shared
// libraries), more than a 1 s clip's transcode. Isolation is kept: a worker runs one job and
// exits, or, with `worker_jobs` above 1, takes up to that many one after another (only after
// a job that succeeded); a new one is started in its place at once.
//
// A worker that dies while it waits is replaced; one that fails to set up (its device does not
// open) is never handed a job, and its device's pool backs off before trying again. A device
// whose workers wait unused for `idle_s` has them stopped, until its next job. The pool's
// thread does all of this, starting every warm worker too: a worker dies with the thread that
// started it (PR_SET_PDEATHSIG follows the thread), and job threads end with their jobs. take()
// is called from job threads, never from RPC threads.
//
// Where `worker_zygote` is on (the default), every worker, warm or cold, is forked by the
// pool's zygote (zygote.h) rather than executed: the pool's thread starts the zygote, and
// another when one ends; while none runs, each worker is a fresh `transcoded --worker` process
// (fork and exec).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "service/daemon/policy/scheduler.h"
#include "service/daemon/worker/worker_process.h"
#include "service/daemon/worker/zygote.h"

namespace tc::daemon {

struct WarmOptions {
  int per_device = 0;           // `warm_workers`: ready workers kept per device; 0 = none
  double idle_s = 600;          // `warm_idle`: a device's workers unused this long are stopped
  double ready_timeout_s = 60;  // a worker not ready by then is killed (a wedged device open)
  // `worker_jobs`: jobs a warm worker runs, one after another, before it exits; 1 = a fresh
  // process for every job.
  int jobs_per_worker = 1;
  // `worker_zygote`: workers are forked by a zygote instead of executed.
  bool zygote = true;
};

class WorkerPool {
 public:
  // A pool per device of `devices`, each worker started with `launch`; a device's workers open
  // it (WorkerLaunch::open_backend/open_path). Starts filling at once.
  WorkerPool(const WorkerLaunch& launch, const std::vector<SchedDevice>& devices,
             WarmOptions options);
  ~WorkerPool();  // kills the workers still waiting
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // A ready worker of device `device` (its index in `devices`); else one being set up, once it
  // says it is ready (waited for here, on the caller's thread); else null: the caller starts
  // one cold. Either way the pool's thread starts a replacement now.
  std::unique_ptr<WorkerProcess> take(size_t device);
  // A worker for `launch` started now, for a job take() had none for: forked by the zygote
  // where one runs, else executed.
  Result<std::unique_ptr<WorkerProcess>> start_worker(const WorkerLaunch& launch);
  struct Counts {
    int ready = 0;             // set up, waiting for a job
    int64_t lost = 0;          // ended while they waited (killed, crashed): replaced
    int64_t failed_setup = 0;  // never got ready (their device did not open)
  };
  // Per device, in the order of `devices`.
  std::vector<Counts> counts();
  // The end of a job that ran on a worker take() gave: `worker` when it said it is ready for
  // another (supervise's ready_again; kept as ready while it has jobs left), else null.
  void job_ended(size_t device, pid_t pid, std::unique_ptr<WorkerProcess> worker);

 private:
  using Clock = std::chrono::steady_clock;
  struct Waiting {
    std::unique_ptr<WorkerProcess> process;
    Clock::time_point started;
    bool ready = false;  // it said {"ready": {}}
    int jobs_left = 1;   // it exits after this many more
  };
  // What failed is tried again after 1 s, each failure doubling the wait (to 5 min), so a
  // broken device or binary does not spin process starts.
  struct Backoff {
    bool waiting() const { return Clock::now() < next_try; }
    void failed();  // the next try waits `wait_s`, which then doubles
    void succeeded() { wait_s = 1; }
    Clock::time_point next_try;
    double wait_s = 1;
  };
  struct DevicePool {
    std::string name;  // the scheduler's, for the log
    WorkerLaunch launch;
    std::vector<Waiting> workers;
    Clock::time_point last_used;
    Backoff retry;  // after a failed start
    bool stopped_idle = false;
    int64_t lost = 0;
    int64_t failed_setup = 0;
    // Workers out on a job that may come back (jobs left after it), by pid: each holds its
    // place in the pool, so no replacement is started for it.
    std::map<pid_t, int> out;
  };

  void loop();  // the pool's thread
  void tend();  // its round: every 100 ms, and after a take()
  static std::optional<std::string> listen(WorkerProcess& worker, double timeout_s);
  void check(DevicePool& pool, Waiting& w);  // mutex_ held; drops what cannot serve
  std::unique_ptr<WorkerProcess> wait_ready(size_t device, Waiting w);  // mutex_ not held
  void lost_setup(DevicePool& pool, const std::string& why);            // mutex_ held
  // `w` is handed out: it keeps its place in the pool while it may come back.
  static void hold_place(DevicePool& pool, const Waiting& w);  // mutex_ held
  void top_up(DevicePool& pool);  // mutex_ held; on the pool's thread only
  void failed_start(DevicePool& pool, const std::string& why);  // mutex_ held
  void keep_zygote();  // on the pool's thread only: one running while `zygote` is on
  std::shared_ptr<Zygote> zygote();

  const WarmOptions options_;
  const std::string executable_;
  std::mutex zygote_mutex_;         // guards the pointer; the zygote guards its own socket
  std::shared_ptr<Zygote> zygote_;  // null until started, and while none runs
  bool zygote_refused_ = false;     // the kernel refused its fork: none is started again
  Backoff zygote_retry_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool taken_ = false;  // a take() since the last round: top up now
  bool stopping_ = false;
  std::vector<DevicePool> pools_;
  std::thread thread_;
};

}  // namespace tc::daemon
