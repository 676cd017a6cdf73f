#include "service/daemon/worker/worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "pipeline/core/fd.h"
#include "service/daemon/worker/child_environment.h"
#include "service/daemon/worker/worker_protocol.h"

extern char** environ;

namespace tc::daemon {
namespace {

Status write_line(int fd, const std::string& line) {
  if (write_all(fd, line + "\n")) return {};
  return {Code::kInternal, std::string("write to worker: ") + strerror(errno)};
}

// The worker starts with default signal dispositions, nothing blocked, in its own process
// group: a Ctrl-C at the daemon's terminal reaches the daemon, which then decides (grace period)
// rather than every worker dying at once.
Status spawn_attributes(posix_spawnattr_t& attr) {
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int s : {SIGTERM, SIGINT, SIGPIPE, SIGHUP, SIGCHLD}) sigaddset(&defaults, s);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
  return {};
}

}  // namespace

Result<WorkerPipes> WorkerPipes::open() {
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0)
    return Status(Code::kInternal, "pipe: " + std::string(strerror(errno)), true);
  WorkerPipes pipes;
  pipes.in_read.reset(in[0]);
  pipes.in_write.reset(in[1]);
  if (::pipe2(out, O_CLOEXEC) != 0)
    return Status(Code::kInternal, "pipe: " + std::string(strerror(errno)), true);
  pipes.out_read.reset(out[0]);
  pipes.out_write.reset(out[1]);
  return pipes;
}

namespace {

// NodeSettings, field by field, as parse_worker_args (worker_main.cc) reads them back.
void add_node_args(const NodeSettings& node, std::vector<std::string>& args) {
  args.insert(args.end(), {"--memory-mb", std::to_string(node.memory_mb), "--max-pixels",
                           std::to_string(node.max_pixels), "--gop-parallel",
                           std::to_string(node.gop_parallel)});
  for (const std::string& root : node.media_roots) args.insert(args.end(), {"--media-root", root});
  for (const std::string& protocol : node.protocols)
    args.insert(args.end(), {"--allow-protocol", protocol});
  if (node.landlock) args.push_back("--landlock");
  if (!node.gpu_cache.empty()) args.insert(args.end(), {"--gpu-cache", node.gpu_cache});
  if (!node.devices_json.empty()) args.insert(args.end(), {"--devices", node.devices_json});
}

}  // namespace

std::vector<std::string> worker_args(const WorkerLaunch& launch) {
  std::vector<std::string> args = {"--worker", "--parent-pid", std::to_string(::getpid())};
  add_node_args(launch.node, args);
  if (launch.jobs > 1) args.insert(args.end(), {"--jobs", std::to_string(launch.jobs)});
  if (launch.open_backend != BackendKind::kSoftware)
    args.insert(args.end(), {"--open-device",
                             std::string(name_of(launch.open_backend)) + ":" + launch.open_path});
  return args;
}

Result<pid_t> spawn_process(const std::string& executable, const std::vector<std::string>& args,
                            int stdin_fd, int stdout_fd) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, stdin_fd, STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, stdout_fd, STDOUT_FILENO);
  posix_spawnattr_t attr;
  (void)spawn_attributes(attr);
  std::vector<std::string> argv_text = {executable};
  argv_text.insert(argv_text.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_text = child_environment(environ);
  std::vector<char*> env;
  for (std::string& entry : env_text) env.push_back(entry.data());
  env.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, executable.c_str(), &actions, &attr, argv.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0)
    return Status(Code::kInternal, "cannot start " + executable + ": " + strerror(rc), true);
  return pid;
}

std::unique_ptr<WorkerProcess> WorkerProcess::adopt(pid_t pid, WorkerPipes& pipes) {
  std::unique_ptr<WorkerProcess> worker(
      new WorkerProcess(pid, pipes.in_write.release(), pipes.out_read.release()));
  // The child holds its ends now; ours must close, or the stdout pipe never reaches its end.
  pipes.in_read.reset();
  pipes.out_write.reset();
  return worker;
}

Result<std::unique_ptr<WorkerProcess>> WorkerProcess::spawn(const WorkerLaunch& launch) {
  TC_ASSIGN_OR_RETURN(WorkerPipes pipes, WorkerPipes::open());
  TC_ASSIGN_OR_RETURN(pid_t pid, spawn_process(launch.executable, worker_args(launch),
                                               pipes.in_read.get(), pipes.out_write.get()));
  return adopt(pid, pipes);
}

Status WorkerProcess::send_job(const WorkerJob& job) {
  // The spec is a few KB, well under a pipe's buffer; a worker that died early gives EPIPE
  // (SIGPIPE is ignored by the daemon) and is judged by its exit status. One line: the answer
  // to the worker's publish request follows it on the same pipe.
  return write_line(in_fd_.get(), job_line(job));
}

WorkerProcess::~WorkerProcess() {
  if (!reaped_) {
    ::kill(pid_, SIGKILL);
    wait();
  }
}

bool WorkerProcess::take_buffered_line(std::string& line) {
  size_t newline = buffer_.find('\n');
  if (newline == std::string::npos) return false;
  line = buffer_.substr(0, newline);
  buffer_.erase(0, newline + 1);
  return true;
}

WorkerProcess::Read WorkerProcess::read_line(std::string& line, double timeout_s) {
  if (take_buffered_line(line)) return Read::kLine;
  if (at_end_) return Read::kEnd;
  pollfd p{out_fd_.get(), POLLIN, 0};
  int ready = ::poll(&p, 1, static_cast<int>(timeout_s * 1000));
  if (ready <= 0) return Read::kTimeout;  // EINTR too: the caller loops
  char chunk[4096];
  ssize_t n = ::read(out_fd_.get(), chunk, sizeof chunk);
  if (n < 0 && errno == EINTR) return Read::kTimeout;
  if (n <= 0) {
    at_end_ = true;
    return Read::kEnd;
  }
  buffer_.append(chunk, static_cast<size_t>(n));
  return take_buffered_line(line) ? Read::kLine : Read::kTimeout;
}

Status WorkerProcess::answer_publish(const Status& answer) {
  return write_line(in_fd_.get(), publish_answer_line(answer));
}

void WorkerProcess::send_signal(int signal_number) {
  if (!reaped_) ::kill(pid_, signal_number);
}

int WorkerProcess::wait() {
  int status = 0;
  rusage usage{};
  pid_t done;
  while ((done = ::wait4(pid_, &status, 0, &usage)) < 0 && errno == EINTR) {
  }
  reaped_ = true;
  if (done == pid_)
    cpu_at_exit_s_ = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                     static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  return status;
}

std::string describe_signal(int signal_number) {
  const char* abbrev = sigabbrev_np(signal_number);
  return "signal " + std::to_string(signal_number) +
         (abbrev ? std::string(" (SIG") + abbrev + ")" : "");
}

}  // namespace tc::daemon
