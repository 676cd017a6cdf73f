#include "service/daemon/worker/zygote.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <optional>
#include <thread>

#include <CLI/CLI.hpp>

#include "service/common/command_line.h"
#include "service/common/exit_codes.h"
#include "service/daemon/worker/worker_main.h"

namespace tc::daemon {
namespace {

constexpr int kControlFd = STDIN_FILENO;  // the zygote's end of the socket pair
constexpr size_t kMaxRequestBytes = 1 << 20;
constexpr int kReplyTimeoutMs = 10'000;

Status socket_error(const std::string& what) {
  return {Code::kInternal, "zygote: " + what + ": " + strerror(errno), true};
}

// A request as sendmsg and recvmsg take it: `size` bytes at `data`, and room for the worker's
// two descriptors.
struct TwoFdMessage {
  TwoFdMessage(void* data, size_t size) : bytes{data, size} {
    header.msg_iov = &bytes;
    header.msg_iovlen = 1;
    header.msg_control = control;
    header.msg_controllen = sizeof control;
  }
  TwoFdMessage(const TwoFdMessage&) = delete;  // the header points into the object
  TwoFdMessage& operator=(const TwoFdMessage&) = delete;

  iovec bytes;
  alignas(cmsghdr) char control[CMSG_SPACE(2 * sizeof(int))] = {};
  msghdr header{};
};

// The daemon's side: the worker's arguments, NUL-separated, and its stdin and stdout.
Status send_request(int socket, const std::vector<std::string>& args, int stdin_fd, int stdout_fd) {
  std::string payload;
  for (const std::string& arg : args) payload.append(arg).push_back('\0');
  TwoFdMessage message(payload.data(), payload.size());
  cmsghdr* fds = CMSG_FIRSTHDR(&message.header);
  fds->cmsg_level = SOL_SOCKET;
  fds->cmsg_type = SCM_RIGHTS;
  fds->cmsg_len = CMSG_LEN(2 * sizeof(int));
  int pair[2] = {stdin_fd, stdout_fd};
  memcpy(CMSG_DATA(fds), pair, sizeof pair);
  if (::sendmsg(socket, &message.header, MSG_NOSIGNAL) < 0) return socket_error("send");
  return Status::ok();
}

// The zygote's answer: the worker's pid, or minus the errno of a failed fork.
Result<int32_t> receive_reply(int socket) {
  pollfd ready{socket, POLLIN, 0};
  int polled = ::poll(&ready, 1, kReplyTimeoutMs);
  if (polled == 0) return Status(Code::kInternal, "zygote: no answer in 10 s", true);
  if (polled < 0) return socket_error("poll");
  int32_t reply = 0;
  ssize_t n = ::recv(socket, &reply, sizeof reply, 0);
  if (n < 0) return socket_error("receive");
  if (n != sizeof reply) return Status(Code::kInternal, "zygote: it ended", true);
  return reply;
}

struct ForkRequest {
  std::vector<std::string> args;
  ScopedFd stdin_fd, stdout_fd;
};

// The zygote's side; nullopt once the daemon closed the socket.
Result<std::optional<ForkRequest>> receive_request(std::vector<char>& buffer) {
  TwoFdMessage message(buffer.data(), buffer.size());
  ssize_t n;
  do {
    n = ::recvmsg(kControlFd, &message.header, MSG_CMSG_CLOEXEC);
  } while (n < 0 && errno == EINTR);
  if (n < 0) return socket_error("receive");
  if (n == 0) return std::optional<ForkRequest>();
  ForkRequest request;
  cmsghdr* fds = CMSG_FIRSTHDR(&message.header);
  if (fds && fds->cmsg_level == SOL_SOCKET && fds->cmsg_type == SCM_RIGHTS &&
      fds->cmsg_len == CMSG_LEN(2 * sizeof(int))) {
    int pair[2];
    memcpy(pair, CMSG_DATA(fds), sizeof pair);
    request.stdin_fd.reset(pair[0]);
    request.stdout_fd.reset(pair[1]);
  }
  // Every argument ends with its NUL, the last one included: the parse below stays in bounds.
  if ((message.header.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) || !request.stdout_fd.is_open() ||
      buffer[static_cast<size_t>(n) - 1] != '\0')
    return Status(Code::kInternal, "zygote: a malformed request");
  for (const char* at = buffer.data(); at < buffer.data() + n; at += strlen(at) + 1)
    request.args.emplace_back(at);
  return std::optional<ForkRequest>(std::move(request));
}

// fork(), except that the child's parent is the zygote's own parent, the daemon. glibc's fork()
// cannot pass CLONE_PARENT, so this is the system call itself. It skips the atfork handlers,
// which the zygote does not need (it has one thread and holds no lock), and it leaves glibc's
// cached thread id in the child's main thread descriptor stale, which is why the worker runs on
// a new thread (run_forked).
pid_t fork_for_daemon() {
  return static_cast<pid_t>(::syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, nullptr, nullptr, 0));
}

// In the forked child: become the worker that `request` describes. The main thread confines the
// process, then only waits, with the cancel signals blocked, so that SIGTERM interrupts the
// worker's reads as it would in an executed worker.
int run_forked(ForkRequest request) {
  // dup2 onto stdin also closes the control socket: the worker cannot ask for forks.
  ::dup2(request.stdin_fd.get(), STDIN_FILENO);
  ::dup2(request.stdout_fd.get(), STDOUT_FILENO);
  request.stdin_fd.reset();
  request.stdout_fd.reset();
  ::setpgid(0, 0);  // a process group of its own, as spawn_process gives
  ::prctl(PR_SET_NAME, "tc-worker");
  int code = kExitInternal;
  // Confined here, while this is the process's only thread: the thread below inherits it.
  Result<WorkerOptions> set_up = set_up_worker(request.args);
  std::thread worker([&] { code = serve_jobs(set_up); });
  sigset_t cancel;
  sigemptyset(&cancel);
  sigaddset(&cancel, SIGTERM);
  sigaddset(&cancel, SIGINT);
  pthread_sigmask(SIG_BLOCK, &cancel, nullptr);
  worker.join();
  return code;
}

Result<int> parse_zygote_args(const std::vector<std::string>& args) {
  int parent_pid = 0;
  CLI::App app{"The daemon's zygote: forks its workers"};
  set_up_app(app, "transcoded --zygote");
  app.add_flag("--zygote")->description("serve fork requests on stdin");
  app.add_option("--parent-pid", parent_pid, "the daemon")->required();
  TC_ASSIGN_OR_RETURN(std::optional<std::string> shown, parse_command_line(app, args));
  if (shown) return Status(Code::kInvalidArgument, "a zygote takes no --help or --version");
  return parent_pid;
}

}  // namespace

Result<std::unique_ptr<Zygote>> Zygote::start(const std::string& executable) {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0)
    return socket_error("socketpair");
  ScopedFd ours(pair[0]), theirs(pair[1]);
  ScopedFd null(::open("/dev/null", O_WRONLY | O_CLOEXEC));
  if (!null.is_open()) return socket_error("/dev/null");
  TC_ASSIGN_OR_RETURN(
      pid_t pid, spawn_process(executable, {"--zygote", "--parent-pid", std::to_string(::getpid())},
                               theirs.get(), null.get()));
  return std::unique_ptr<Zygote>(new Zygote(pid, std::move(ours)));
}

Zygote::~Zygote() {
  socket_.reset();
  ::kill(pid_, SIGKILL);
  while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
}

bool Zygote::broken() {
  std::lock_guard lock(mutex_);
  pollfd peer{socket_.get(), 0, 0};  // POLLHUP: the zygote is gone
  if (::poll(&peer, 1, 0) > 0 && (peer.revents & (POLLHUP | POLLERR))) broken_ = true;
  return broken_;
}

Result<pid_t> Zygote::ask(const std::vector<std::string>& args, int stdin_fd, int stdout_fd) {
  std::lock_guard lock(mutex_);
  if (broken_) return Status(Code::kInternal, "zygote: it ended", true);
  Status sent = send_request(socket_.get(), args, stdin_fd, stdout_fd);
  Result<int32_t> reply = sent.is_ok() ? receive_reply(socket_.get()) : Result<int32_t>(sent);
  if (!reply.is_ok()) {
    broken_ = true;
    return reply.status();
  }
  if (*reply <= 0) {
    // A seccomp profile that refuses CLONE_PARENT will refuse it every time.
    int error = -*reply;
    bool refused = error == EPERM || error == ENOSYS || error == EINVAL;
    return Status(refused ? Code::kUnsupported : Code::kInternal,
                  std::string("zygote: fork: ") + strerror(error), !refused);
  }
  return static_cast<pid_t>(*reply);
}

Result<std::unique_ptr<WorkerProcess>> Zygote::fork_worker(const WorkerLaunch& launch) {
  TC_ASSIGN_OR_RETURN(WorkerPipes pipes, WorkerPipes::open());
  TC_ASSIGN_OR_RETURN(pid_t pid,
                      ask(worker_args(launch), pipes.in_read.get(), pipes.out_write.get()));
  return WorkerProcess::adopt(pid, pipes);
}

bool is_zygote_invocation(const std::vector<std::string>& args) {
  return !args.empty() && args[0] == "--zygote";
}

int zygote_main(const std::vector<std::string>& args) {
  Result<int> parent_pid = parse_zygote_args(args);
  if (!parent_pid.is_ok()) {
    std::fprintf(stderr, "transcoded --zygote: %s\n", parent_pid.status().message().c_str());
    return kExitUsage;
  }
  ::prctl(PR_SET_NAME, "tc-zygote");
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != *parent_pid) return kExitInternal;  // the daemon died before prctl
  std::vector<char> buffer(kMaxRequestBytes);
  for (;;) {
    Result<std::optional<ForkRequest>> request = receive_request(buffer);
    if (!request.is_ok()) {
      std::fprintf(stderr, "%s\n", request.status().message().c_str());
      return kExitInternal;
    }
    if (!*request) return kExitOk;  // the daemon closed the socket
    pid_t pid = fork_for_daemon();
    if (pid == 0) return run_forked(std::move(**request));
    int32_t reply = pid > 0 ? pid : -errno;
    (void)::send(kControlFd, &reply, sizeof reply, MSG_NOSIGNAL);
  }
}

}  // namespace tc::daemon
