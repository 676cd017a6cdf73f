// The zygote: one `transcoded --zygote` process, executed once and set up as far as a worker is
// before it learns anything of a job (the binary and its 233 shared libraries loaded and
// relocated, static state initialised), that forks a worker whenever the daemon asks. A forked
// worker skips the exec, the dynamic linking and the libraries' initialisation: on the 2-core VM
// those cost 0.11-0.15 CPU-s per process, more than the CPU a 1 s clip's transcode takes, and in
// a burst the warm pool's replacements paid them on the same cores as the jobs.
//
// Isolation is what it was: the zygote opens no device, reads no job and holds no secret; each
// worker is a process of its own that then parses its own command line (worker_args) and sets
// itself up exactly as an executed one does (limits, Landlock, its device), runs its job and
// exits. What forked workers share is the zygote's address-space layout (as Android's and
// Chromium's zygotes do): `worker_zygote: false` executes every worker instead.
//
// The worker is the daemon's child, not the zygote's (clone with CLONE_PARENT): the daemon
// waits for it, signals it and reads its exit status exactly as for an executed worker, and it
// dies with the daemon thread that started the zygote (PR_SET_PDEATHSIG, set again by the
// worker). The zygote itself dies with that thread too.
//
// The wire, a SOCK_SEQPACKET pair that is the zygote's stdin: the daemon sends the worker's
// arguments, NUL-separated, with the worker's stdin and stdout as SCM_RIGHTS; the zygote answers
// with the worker's pid as an int32 (or minus errno).
#pragma once

#include <sys/types.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "pipeline/core/fd.h"
#include "pipeline/core/status.h"
#include "service/daemon/worker/worker_process.h"

namespace tc::daemon {

class Zygote {
 public:
  // Executes `executable --zygote` as a child of the calling thread: start it on the thread
  // whose end should end every worker it forks.
  static Result<std::unique_ptr<Zygote>> start(const std::string& executable);
  ~Zygote();  // closes the socket (the zygote exits at its end), kills and reaps it
  Zygote(const Zygote&) = delete;
  Zygote& operator=(const Zygote&) = delete;

  // A worker for `launch`, forked now, that then sets itself up as an executed one would.
  // Thread-safe. An error (the zygote died or did not answer) leaves it broken for good:
  // the caller executes the worker instead and starts another zygote. kUnsupported: the
  // kernel refused the fork itself (a seccomp profile without CLONE_PARENT), as it will again.
  Result<std::unique_ptr<WorkerProcess>> fork_worker(const WorkerLaunch& launch);
  bool broken();
  pid_t pid() const { return pid_; }

 private:
  Zygote(pid_t pid, ScopedFd socket) : pid_(pid), socket_(std::move(socket)) {}
  Result<pid_t> ask(const std::vector<std::string>& args, int stdin_fd, int stdout_fd);

  const pid_t pid_;
  std::mutex mutex_;  // one request at a time on the socket
  ScopedFd socket_;
  bool broken_ = false;
};

bool is_zygote_invocation(const std::vector<std::string>& args);
// `transcoded --zygote --parent-pid PID`: serves fork requests on stdin until it closes. In a
// forked worker it returns that worker's exit code instead.
int zygote_main(const std::vector<std::string>& args);

}  // namespace tc::daemon
