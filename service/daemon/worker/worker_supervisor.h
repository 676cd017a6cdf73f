// Watches one worker to its end on a job thread (never an RPC thread): forwards its progress,
// turns a stop request into SIGTERM and, after a grace period, SIGKILL, kills a worker that
// stops making progress (a GPU hang, a wedged decoder), and judges how it ended.
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include "pipeline/core/status.h"
#include "pipeline/exec/report.h"
#include "service/daemon/worker/worker_process.h"

namespace tc::daemon {

// kStopLost: another node took the job over (this node lost its lease): stop, write nothing.
enum StopRequest : int { kStopNone = 0, kStopCancel, kStopShutdown, kStopLost };

struct SuperviseOptions {
  double stall_timeout_s = 60;
  double cancel_grace_s = 10;
};

struct WorkerOutcome {
  Status status;     // ok: the worker sent a result, then exited 0 or said it is ready again
  JobReport report;  // when ok
  // It said it is ready for another job after its result (worker_main.h --jobs): it still
  // runs, waiting on its stdin.
  bool ready_again = false;
  // It ended without a result and without saying why (a signal, an exit): its status is
  // retryable, as nothing says the job itself is at fault.
  bool crashed = false;
};

// Decides whether the worker may publish its complete outputs: ok allows; any other status is
// sent to the worker, which removes them and fails the job with it.
using PublishCheck = std::function<Status()>;

// `on_tick`, when set, is called from the same thread at least every 0.2 s until the worker
// ends: the job's sampler runs there. `on_log` takes each line of the job's own log the worker
// sends (worker_protocol.h), on that thread too. `may_publish` is called on that thread too, when
// the worker asks (once; empty: allowed); the watchdog's stall clock starts again after it.
WorkerOutcome supervise(WorkerProcess& worker, const SuperviseOptions& options,
                        const std::atomic<int>& stop,
                        const std::function<void(const Progress&)>& on_progress,
                        const std::function<void()>& on_tick = {},
                        const PublishCheck& may_publish = {},
                        const std::function<void(const JobLogLine&)>& on_log = {});

// How a worker ended, from what it said (`said`: its error line, if any) and its wait status. A
// crash (no result, nothing said) is retryable.
Status judge_exit(int wait_status, bool got_result, const Status& said);

}  // namespace tc::daemon
