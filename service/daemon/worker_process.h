// One worker process: spawned with posix_spawn (safe in a threaded daemon), its stdin fed the
// spec, its stdout read as lines. The object owns the process: destroying it kills and reaps a
// worker still running, so no path leaves a zombie or an orphan.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "pipeline/core/fd.h"
#include "pipeline/core/status.h"
#include "pipeline/spec/job_spec.h"

namespace tc::daemon {

struct WorkerLaunch {
  std::string executable;  // this daemon's binary
  JobSpec spec;            // written to the worker's stdin as JSON: the pipe's one encoding of it
  long long memory_mb = 0;
  long long max_pixels = 0;
  std::vector<std::string> media_roots;  // the worker opens everything below these
  std::vector<std::string> protocols;    // allow_protocol
  bool landlock = false;                 // restrict the worker to the roots (landlock.h)
};

class WorkerProcess {
 public:
  static Result<std::unique_ptr<WorkerProcess>> spawn(const WorkerLaunch& launch);
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  enum class Read { kLine, kTimeout, kEnd };
  // The next complete line of the worker's stdout, waiting at most timeout_s.
  Read read_line(std::string& line, double timeout_s);
  void send_signal(int signal_number);
  // Waits for the exit; the wait(2) status.
  int wait();
  pid_t pid() const { return pid_; }

 private:
  WorkerProcess(pid_t pid, int out_fd) : pid_(pid), out_fd_(out_fd) {}
  bool take_buffered_line(std::string& line);

  pid_t pid_;
  ScopedFd out_fd_;  // the read end of the worker's stdout
  bool reaped_ = false;
  bool at_end_ = false;
  std::string buffer_;
};

// "signal 11 (SIGSEGV)"
std::string describe_signal(int signal_number);

}  // namespace tc::daemon
