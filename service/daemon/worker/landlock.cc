#include "service/daemon/worker/landlock.h"

#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "pipeline/core/fd.h"

namespace tc::daemon {
namespace {

using Access = __u64;

// The rights of ABI 1; REFER (linking or renaming across directories) from ABI 2. Rights of
// later ABIs are left unhandled, so they stay allowed: this header (Linux 6.1) does not name them.
constexpr Access kReadFile = LANDLOCK_ACCESS_FS_READ_FILE;
constexpr Access kRead =
    LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
constexpr Access kWriteTree = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
                              LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_DIR |
                              LANDLOCK_ACCESS_FS_MAKE_REG;
constexpr Access kAbi1 = kRead | kWriteTree | LANDLOCK_ACCESS_FS_MAKE_CHAR |
                         LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
                         LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;

int create_ruleset(const landlock_ruleset_attr* attr, size_t size, __u32 flags) {
  return static_cast<int>(syscall(SYS_landlock_create_ruleset, attr, size, flags));
}

std::string errno_text(const char* call) {
  return std::string(call) + ": " + std::strerror(errno);
}

// Grants `access` below `path`; a path that is not there needs no rule.
Status allow(int ruleset, const std::string& path, Access access) {
  ScopedFd dir(open(path.c_str(), O_PATH | O_CLOEXEC));
  if (!dir.is_open()) return Status::ok();
  struct stat info {};
  // A rule on a file (not a directory) takes file rights only.
  if (fstat(dir.get(), &info) == 0 && !S_ISDIR(info.st_mode))
    access &=
        LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_EXECUTE;
  landlock_path_beneath_attr rule{access, dir.get()};
  if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0)
    return Status(Code::kInternal, "landlock: " + path + ": " + errno_text("landlock_add_rule"));
  return Status::ok();
}

// The dynamic loader's cache and the alternatives its links go through; the VA-API, Vulkan,
// OpenCL, GLVND, DRI and NVIDIA drivers' configuration; intel-media-driver's user feature file;
// fonts and time zone (subtitle rendering, timestamps); name resolution and CA certificates for
// network inputs (allow_protocol); the user and group names libraries look up.
constexpr std::array<const char*, 24> kEtcForLibraries = {"/etc/ld.so.cache",
                                                          "/etc/ld.so.conf",
                                                          "/etc/ld.so.conf.d",
                                                          "/etc/alternatives",
                                                          "/etc/libva.conf",
                                                          "/etc/vulkan",
                                                          "/etc/OpenCL",
                                                          "/etc/glvnd",
                                                          "/etc/drirc",
                                                          "/etc/nvidia",
                                                          "/etc/igfx_user_feature.txt",
                                                          "/etc/fonts",
                                                          "/etc/localtime",
                                                          "/etc/timezone",
                                                          "/etc/nsswitch.conf",
                                                          "/etc/resolv.conf",
                                                          "/etc/hosts",
                                                          "/etc/host.conf",
                                                          "/etc/gai.conf",
                                                          "/etc/services",
                                                          "/etc/ssl",
                                                          "/etc/ca-certificates",
                                                          "/etc/passwd",
                                                          "/etc/group"};

}  // namespace

int landlock_abi(std::string* why) {
  int abi = create_ruleset(nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  if (abi > 0) return abi;
  if (why)
    *why = errno == ENOSYS       ? "the kernel has no Landlock (Linux 5.13 or later)"
           : errno == EOPNOTSUPP ? "Landlock is built but not enabled (lsm= boot option)"
                                 : errno_text("landlock_create_ruleset");
  return 0;
}

LandlockPaths worker_landlock_paths(const std::vector<std::string>& media_roots,
                                    const std::string& gpu_cache) {
  LandlockPaths paths;
  paths.read_write = media_roots;
  if (!gpu_cache.empty()) paths.read_write.push_back(gpu_cache);
  // Shared libraries and what they dlopen (VA drivers, Vulkan ICDs, CUDA), and the kernel's
  // views that libdrm, CUDA and the sanitizers read.
  paths.read_only = {"/usr", "/lib", "/lib64", "/lib32", "/opt", "/proc", "/sys"};
  // Of /etc only what those libraries read: not the rest, where an operator keeps the daemon's
  // token, webhook secret, TLS key and store password (README, Security).
  paths.read_only.insert(paths.read_only.end(), kEtcForLibraries.begin(), kEtcForLibraries.end());
  paths.devices = {"/dev"};
  // Read-only, /proc broke CUDA on the H200 (cuInit: CUDA_ERROR_OPERATING_SYSTEM); the process's
  // own files are enough, not another process's.
  paths.own_process = {"/proc/self"};
  return paths;
}

Status apply_landlock(const LandlockPaths& paths) {
  std::string why;
  int abi = landlock_abi(&why);
  if (abi == 0) return Status(Code::kUnsupported, "landlock: " + why);
  landlock_ruleset_attr attr{kAbi1 | (abi >= 2 ? Access(LANDLOCK_ACCESS_FS_REFER) : 0)};
  ScopedFd ruleset(create_ruleset(&attr, sizeof attr, 0));
  if (!ruleset.is_open())
    return Status(Code::kInternal, "landlock: " + errno_text("landlock_create_ruleset"));
  for (const std::string& path : paths.read_write)
    TC_RETURN_IF_ERROR(allow(ruleset.get(), path, kRead | kWriteTree));
  for (const std::string& path : paths.read_only)
    TC_RETURN_IF_ERROR(allow(ruleset.get(), path, kRead));
  constexpr Access kReadWriteFiles =
      kReadFile | LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_WRITE_FILE;
  for (const std::string& path : paths.devices)
    TC_RETURN_IF_ERROR(allow(ruleset.get(), path, kReadWriteFiles));
  for (const std::string& path : paths.own_process)
    TC_RETURN_IF_ERROR(allow(ruleset.get(), path, kReadWriteFiles));
  // Without it an unprivileged process may not restrict itself (and a setuid exec could not
  // regain what the rules take away).
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return Status(Code::kInternal, "landlock: " + errno_text("prctl(PR_SET_NO_NEW_PRIVS)"));
  if (syscall(SYS_landlock_restrict_self, ruleset.get(), 0) != 0)
    return Status(Code::kInternal, "landlock: " + errno_text("landlock_restrict_self"));
  return Status::ok();
}

}  // namespace tc::daemon
