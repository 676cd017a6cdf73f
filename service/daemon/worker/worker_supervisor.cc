#include "service/daemon/worker/worker_supervisor.h"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/wait.h>

#include <chrono>

#include "service/daemon/worker/worker_protocol.h"

namespace tc::daemon {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// The state of one supervision: what the worker said and what was done to it.
struct Watch {
  Clock::time_point last_progress = Clock::now();
  Clock::time_point term_sent;
  bool terminating = false;
  bool killed = false;
  bool stalled = false;
  bool got_result = false;
  bool asked_to_publish = false;
  bool ready_again = false;  // "ready" after its result
  Status said;               // its error line
  JobReport report;
};

// The answer to the worker's publish request. A second request is refused: the executor asks
// once, and the check (a fence in the store) is for one rename of the job's outputs.
void answer_publish(WorkerProcess& worker, const PublishCheck& may_publish, Watch& watch) {
  Status answer;
  if (watch.asked_to_publish)
    answer = Status(Code::kInternal, "the worker asked to publish twice");
  else if (may_publish)
    answer = may_publish();
  watch.asked_to_publish = true;
  if (!answer.is_ok())
    spdlog::warn("worker {}: may not publish: {}", worker.pid(), answer.message());
  // A worker gone meanwhile (EPIPE) is judged by its exit, as ever.
  (void)worker.answer_publish(answer);
  // The worker said nothing while the check ran: not a stall.
  watch.last_progress = Clock::now();
}

// What the supervisor hands on, as supervise() takes it.
struct Handlers {
  const std::function<void(const Progress&)>& on_progress;
  const PublishCheck& may_publish;
  const std::function<void(const JobLogLine&)>& on_log;
};

void handle_line(const std::string& line, Watch& watch, WorkerProcess& worker,
                 const Handlers& handlers) {
  Result<WorkerMessage> message = parse_worker_line(line);
  if (!message.is_ok()) {
    spdlog::warn("worker {}: {}", worker.pid(), message.status().message());
    return;
  }
  switch (message->kind) {
    case WorkerMessage::Kind::kReady:
      // Before the result: a worker started for this job, set up, reads it now. After it: the
      // worker waits for another job.
      watch.last_progress = Clock::now();
      watch.ready_again = watch.got_result;
      break;
    case WorkerMessage::Kind::kProgress:
      watch.last_progress = Clock::now();
      if (handlers.on_progress) handlers.on_progress(message->progress);
      break;
    case WorkerMessage::Kind::kPublish:
      answer_publish(worker, handlers.may_publish, watch);
      break;
    case WorkerMessage::Kind::kResult:
      watch.got_result = true;
      watch.report = std::move(message->report);
      break;
    case WorkerMessage::Kind::kError:
      watch.said = message->error;
      break;
    case WorkerMessage::Kind::kLog:  // not progress: a decoder may warn while it hangs
      if (handlers.on_log) handlers.on_log(message->log);
      break;
  }
}

// Escalates: a stop request gets SIGTERM, then SIGKILL once the grace period is over; a worker
// silent for stall_timeout_s gets SIGKILL at once (a hung GPU call ignores SIGTERM anyway).
void enforce(WorkerProcess& worker, const SuperviseOptions& options, int stop, Watch& watch) {
  if (watch.killed) return;
  if (stop != kStopNone && !watch.terminating) {
    worker.send_signal(SIGTERM);
    watch.terminating = true;
    watch.term_sent = Clock::now();
  }
  if (watch.terminating && seconds_since(watch.term_sent) > options.cancel_grace_s) {
    spdlog::warn("worker {}: still running {} s after SIGTERM: SIGKILL", worker.pid(),
                 options.cancel_grace_s);
    worker.send_signal(SIGKILL);
    watch.killed = true;
  }
  if (!watch.terminating && seconds_since(watch.last_progress) > options.stall_timeout_s) {
    spdlog::warn("worker {}: no progress for {} s: killed by the watchdog", worker.pid(),
                 options.stall_timeout_s);
    worker.send_signal(SIGKILL);
    watch.killed = watch.stalled = true;
  }
}

}  // namespace

Status judge_exit(int wait_status, bool got_result, const Status& said) {
  if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0 && got_result) return {};
  if (!said.is_ok()) return said;
  if (WIFSIGNALED(wait_status))
    return {Code::kInternal, "worker crashed: killed by " + describe_signal(WTERMSIG(wait_status)),
            true};
  int code = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
  return {Code::kInternal, "worker exited with code " + std::to_string(code) + " and no result",
          true};
}

WorkerOutcome supervise(WorkerProcess& worker, const SuperviseOptions& options,
                        const std::atomic<int>& stop,
                        const std::function<void(const Progress&)>& on_progress,
                        const std::function<void()>& on_tick, const PublishCheck& may_publish,
                        const std::function<void(const JobLogLine&)>& on_log) {
  const Handlers handlers{on_progress, may_publish, on_log};
  Watch watch;
  std::string line;
  for (;;) {
    // Short polls keep cancel and the watchdog responsive without a thread per timer.
    WorkerProcess::Read read = worker.read_line(line, 0.2);
    if (read == WorkerProcess::Read::kEnd) break;
    if (read == WorkerProcess::Read::kLine) handle_line(line, watch, worker, handlers);
    if (watch.ready_again) {  // the job is done; the worker is the caller's to keep or end
      WorkerOutcome outcome;
      outcome.report = std::move(watch.report);
      outcome.ready_again = true;
      return outcome;
    }
    enforce(worker, options, stop.load(), watch);
    if (on_tick) on_tick();
  }
  int wait_status = worker.wait();
  WorkerOutcome outcome;
  if (watch.stalled) {
    outcome.status = Status(Code::kInternal,
                            "worker made no progress for " +
                                std::to_string(static_cast<int>(options.stall_timeout_s)) +
                                " s (stall_timeout): killed by the watchdog",
                            true);
    return outcome;
  }
  outcome.status = judge_exit(wait_status, watch.got_result, watch.said);
  outcome.crashed = !outcome.status.is_ok() && watch.said.is_ok();
  if (outcome.status.is_ok()) outcome.report = std::move(watch.report);
  return outcome;
}

}  // namespace tc::daemon
