#include "service/daemon/worker/worker_confine.h"

#include <dirent.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "service/daemon/worker/worker_seccomp.h"

namespace tc::daemon {
namespace {

// ThreadSanitizer's runtime may run a thread of its own, started before main: its builds allow
// it (they execute every worker, config.h). 0 threads: /proc could not be read, so no proof.
#if defined(__SANITIZE_THREAD__)
constexpr int kThreadsBeforeOurs = 2;
#else
constexpr int kThreadsBeforeOurs = 1;
#endif

Status errno_status(const std::string& call) {
  return {Code::kInternal, "confinement: " + call + ": " + std::strerror(errno)};
}

bool has_effective(int capability) {
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (syscall(SYS_capget, &header, data) != 0) return false;
  return data[capability / 32].effective & (1u << (capability % 32));
}

// Emptying the bounding set needs CAP_SETPCAP, which only a privileged process has; an
// unprivileged one has nothing in its permitted set to lose, and no_new_privs keeps it so.
Status drop_bounding_set() {
  if (!has_effective(CAP_SETPCAP)) return Status::ok();
  for (int capability = 0; prctl(PR_CAPBSET_READ, capability, 0, 0, 0) >= 0; ++capability)
    if (prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0) return errno_status("PR_CAPBSET_DROP");
  return Status::ok();
}

}  // namespace

int threads_of_this_process() {
  std::unique_ptr<DIR, int (*)(DIR*)> tasks(opendir("/proc/self/task"), closedir);
  if (!tasks) return 0;
  int threads = 0;
  while (dirent* entry = readdir(tasks.get()))
    if (entry->d_name[0] != '.') ++threads;
  return threads;
}

Status drop_capabilities() {
  TC_RETURN_IF_ERROR(drop_bounding_set());
  // Ambient capabilities exist from Linux 4.3; EINVAL before that means there are none.
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
    return errno_status("PR_CAP_AMBIENT_CLEAR_ALL");
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct none[2] = {};
  if (syscall(SYS_capset, &header, none) != 0) return errno_status("capset");
  return Status::ok();
}

Status confine_this_process(bool landlock, const LandlockPaths& paths) {
  int threads = threads_of_this_process();
  if (threads == 0 || threads > kThreadsBeforeOurs)
    return {Code::kInternal, "confinement: the worker has " + std::to_string(threads) +
                                 " threads before it confined itself; all but the calling one "
                                 "would stay unconfined"};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno_status("PR_SET_NO_NEW_PRIVS");
  TC_RETURN_IF_ERROR(drop_capabilities());
  if (Status filtered = apply_worker_seccomp(); filtered.code() != Code::kUnsupported)
    TC_RETURN_IF_ERROR(filtered);
  if (!landlock) return Status::ok();
  Status sandboxed = apply_landlock(paths);
  return sandboxed.code() == Code::kUnsupported ? Status::ok() : sandboxed;
}

}  // namespace tc::daemon
