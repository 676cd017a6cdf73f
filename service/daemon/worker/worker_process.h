// One worker process: spawned with posix_spawn (safe in a threaded daemon), its stdin fed its
// job as one line once there is one (a warm worker waits: worker_pool.h) and kept open for the
// answer to its publish request (worker_protocol.h), its stdout read as lines. The object owns the
// process: destroying it kills and reaps a worker still running, so no path leaves a zombie or an
// orphan.
#pragma once

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/core/fd.h"
#include "pipeline/core/status.h"
#include "pipeline/spec/job_spec.h"
#include "service/daemon/model/node_decisions.h"
#include "service/daemon/worker/worker_protocol.h"

namespace tc::daemon {

// What every worker of the daemon is started with; the job itself follows on stdin.
struct WorkerLaunch {
  std::string executable;  // this daemon's binary
  // The node's settings (node_decisions.h), on the worker's command line: it is set up and
  // confined with them before its job arrives, and runs every job with them.
  NodeSettings node;
  // A warm worker opens its device before it waits for a job (--open-device BACKEND:PATH), so
  // the job finds the context open (hw/device_cache.h). Software: none.
  BackendKind open_backend = BackendKind::kSoftware;
  std::string open_path;
  int jobs = 1;  // --jobs: it runs up to this many, one after another (warm workers only)
};

// The two pipes between the daemon and a worker, all four ends until the worker holds its own.
struct WorkerPipes {
  static Result<WorkerPipes> open();  // close-on-exec, every end
  ScopedFd in_read, in_write;         // the worker's stdin
  ScopedFd out_read, out_write;       // the worker's stdout
};

// The command line of a worker for `launch`, after the executable: what `transcoded --worker`
// parses (worker_main.h), whether the worker is executed or forked by the zygote (zygote.h).
std::vector<std::string> worker_args(const WorkerLaunch& launch);

// Starts `executable args...` the way every process of the daemon's is started: default signal
// dispositions, nothing blocked, a process group of its own, `stdin_fd` and `stdout_fd` as its
// stdin and stdout, nothing else inherited (the daemon's descriptors are close-on-exec), and
// an environment of its own (child_environment.h): no secret of the daemon's.
Result<pid_t> spawn_process(const std::string& executable, const std::vector<std::string>& args,
                            int stdin_fd, int stdout_fd);

class WorkerProcess {
 public:
  // Executes the daemon's binary as a worker.
  static Result<std::unique_ptr<WorkerProcess>> spawn(const WorkerLaunch& launch);
  // Owns the worker `pid`, already started on `pipes` (their worker's ends are closed here).
  static std::unique_ptr<WorkerProcess> adopt(pid_t pid, WorkerPipes& pipes);
  // Hands the worker its job (the first line of its stdin). A worker that died meanwhile is
  // judged by its exit, as ever.
  Status send_job(const WorkerJob& job);
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  enum class Read { kLine, kTimeout, kEnd };
  // The next complete line of the worker's stdout, waiting at most timeout_s.
  Read read_line(std::string& line, double timeout_s);
  // Answers the worker's publish request on its stdin: ok lets it publish, else it fails
  // with `answer`.
  Status answer_publish(const Status& answer);
  void send_signal(int signal_number);
  // Waits for the exit; the wait(2) status.
  int wait();
  pid_t pid() const { return pid_; }
  // Once reaped: its user + system CPU seconds as the kernel counted them at its exit (its
  // /proc entry is gone by then); nullopt while it runs.
  std::optional<double> cpu_seconds_at_exit() const { return cpu_at_exit_s_; }

 private:
  WorkerProcess(pid_t pid, int in_fd, int out_fd) : pid_(pid), in_fd_(in_fd), out_fd_(out_fd) {}
  bool take_buffered_line(std::string& line);

  pid_t pid_;
  ScopedFd in_fd_;   // the write end of the worker's stdin: closing it is a refusal
  ScopedFd out_fd_;  // the read end of the worker's stdout
  bool reaped_ = false;
  std::optional<double> cpu_at_exit_s_;
  bool at_end_ = false;
  std::string buffer_;
};

// "signal 11 (SIGSEGV)"
std::string describe_signal(int signal_number);

}  // namespace tc::daemon
