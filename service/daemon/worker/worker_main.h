// `transcoded --worker`: runs one job in this process. It sets itself up (limits, sandbox, the
// device named by --open-device), says it is ready, then reads its job as the first line of
// stdin (JSON): a warm worker (worker_pool.h) waits there until the daemon has a job for it; JSON
// lines (worker_protocol.h) leave on stdout; with every output complete it asks the daemon whether
// to publish them and reads the answer on stdin (its end: refused); the exit code is
// exit_code_for(status). SIGTERM cancels (the executor removes partial outputs). The daemon that
// started it is its parent: if that dies, the kernel kills the worker, so a restarted daemon never
// races an orphan.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pipeline/core/status.h"
#include "service/daemon/model/node_decisions.h"

namespace tc::daemon {

struct WorkerOptions {
  int parent_pid = 0;  // the daemon; 0 = do not watch
  // The node's settings (node_decisions.h), as the daemon decided them: --memory-mb,
  // --max-pixels, --media-root and --allow-protocol (repeated), --landlock, --gop-parallel,
  // --devices, --gpu-cache. The worker reads no setting of its own.
  NodeSettings node;
  std::string open_device;  // --open-device BACKEND:PATH, opened before the job
  int jobs = 1;             // --jobs: run up to this many, one after another
};

// The worker's command line (worker_process.h worker_args writes it); a malformed one is an
// error, never a default.
Result<WorkerOptions> parse_worker_args(const std::vector<std::string>& args);
// `spec` on the device the dispatcher placed it on (worker_protocol.h WorkerJob::placement): its
// backend and device pinned, so the planner finds that device rather than choosing again. No
// placement (no device of the node runs it): the spec as submitted, for the planner to refuse.
JobSpec placed_spec(JobSpec spec, const std::optional<Placement>& placement);

bool is_worker_invocation(const std::vector<std::string>& args);
// set_up_worker, then serve_jobs, on the calling thread: an executed worker's main().
int worker_main(const std::vector<std::string>& args);
// The part of a worker that must run on its only thread: its arguments parsed, its limits set,
// the process confined whole (worker_confine.h).
Result<WorkerOptions> set_up_worker(const std::vector<std::string>& args);
// The rest, on any thread of the confined process: the device opened, jobs read and run. An
// error from set_up_worker is reported as the worker's failure. The worker's exit code.
int serve_jobs(const Result<WorkerOptions>& set_up_worker);

// Test-only faults, read from TC_TEST_FAULT in the daemon's environment (which workers inherit)
// and never from a request: "crash", "stall" or "slow", optionally ":SUBSTRING" to hit only
// jobs whose input path contains it; several, separated by commas, the first that hits counts.
// slow throttles the pipeline so tests can act mid-run. "hold": the job waits at its first frame
// until a file named as its input plus ".release" exists.
// "device": every --open-device fails, as a device whose context does not open (warm pools).
// "slow-setup": every worker takes 2 s more to set up before it says it is ready.
// "stop-published": the worker stops itself (SIGSTOP) once its outputs are renamed into place,
// before it says its result: a test kills its node there, between the rename and the record.
// "crash-first": "crash" on a job's first attempt only (its retry runs normally).
// "chatty": before the job, libav logs 1500 warnings "chatty line N" (N from 0): a job whose own
// log passes its bound (model/job_log.h).
enum class Fault {
  kNone,
  kCrash,
  kStall,
  kSlow,
  kDevice,
  kSlowSetup,
  kStopPublished,
  kCrashFirst,
  kHold,
  kChatty
};
Fault fault_for(const char* env_value, const std::string& input);

}  // namespace tc::daemon
