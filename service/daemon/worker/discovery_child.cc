#include "service/daemon/worker/discovery_child.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "pipeline/core/fd.h"
#include "pipeline/hw/inventory_json.h"
#include "service/daemon/worker/worker_process.h"

namespace tc::daemon {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// In the child: discovers, writes the inventory to `out` and exits. _exit runs no atexit handler
// and no static destructor, so no driver tears down what discovery set up: the process's end
// frees it all, and a driver that hangs in its teardown cannot hold the daemon.
[[noreturn]] void discover_and_exit(const std::function<HwInventory()>& discover, int out,
                                    pid_t daemon) {
  // Gone with the daemon, also while a driver hangs; it may have died before this was set.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != daemon) ::_exit(1);
  ::prctl(PR_SET_NAME, "tc-discovery");
  // A vendor string that is not UTF-8 is written with U+FFFD, not thrown on.
  std::string json =
      inventory_to_json(discover()).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  ::_exit(write_all(out, json) ? 0 : 1);
}

// Appends what `fd` holds to `out` until its end; false when `deadline` came first.
bool read_to_end(int fd, Clock::time_point deadline, std::string& out) {
  char buffer[1 << 16];
  for (;;) {
    auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd readable{fd, POLLIN, 0};
    int ready = ::poll(&readable, 1, int(std::min<long long>(left, INT_MAX)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) return false;
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;  // the end (an error too: what was read is judged)
    out.append(buffer, size_t(n));
  }
}

// `child`'s wait status once it has exited, waiting until `deadline` at most; then it is
// killed (`killed` set) and reaped.
int reap(pid_t child, Clock::time_point deadline, bool& killed) {
  int status = 0;
  for (;;) {
    pid_t done = ::waitpid(child, &status, WNOHANG);
    if (done == child) return status;
    if (done < 0 && errno != EINTR) return status;
    if (Clock::now() >= deadline) break;
    std::this_thread::sleep_for(milliseconds(5));
  }
  ::kill(child, SIGKILL);
  killed = true;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

Status discovery_error(const std::string& what) {
  return {Code::kDevice, "device discovery " + what};
}

std::string seconds(milliseconds timeout) {
  double s = double(timeout.count()) / 1000;
  char text[32];
  std::snprintf(text, sizeof text, "%g s", s);
  return text;
}

}  // namespace

Result<HwInventory> discover_in_child(const std::function<HwInventory()>& discover,
                                      milliseconds timeout) {
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0)
    return discovery_error(std::string("pipe: ") + strerror(errno));
  ScopedFd from_child(ends[0]);
  ScopedFd to_parent(ends[1]);
  pid_t daemon = ::getpid();
  pid_t child = ::fork();
  if (child < 0) return discovery_error(std::string("fork: ") + strerror(errno));
  if (child == 0) discover_and_exit(discover, to_parent.get(), daemon);
  to_parent.reset();  // the child's is then the only write end: its exit ends the read
  Clock::time_point deadline = Clock::now() + timeout;
  std::string json;
  bool ended = read_to_end(from_child.get(), deadline, json);
  bool killed = false;
  int status = reap(child, ended ? deadline : Clock::now(), killed);
  if (killed)
    return discovery_error("did not finish within " + seconds(timeout) +
                           " (a GPU driver that hangs?): stopped");
  if (WIFSIGNALED(status)) return discovery_error("died of " + describe_signal(WTERMSIG(status)));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return discovery_error("exited with status " + std::to_string(WEXITSTATUS(status)));
  nlohmann::json parsed = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return discovery_error("wrote no inventory");
  Result<HwInventory> inventory = inventory_from_json(parsed);
  if (!inventory.is_ok())
    return discovery_error("wrote a bad inventory: " + inventory.status().message());
  return inventory;
}

}  // namespace tc::daemon
