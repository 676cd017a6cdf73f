// Landlock as a worker applies it: in a child process (it cannot be lifted), what the rules
// allow still works and a file beside the roots cannot be opened, even by its real path. And the
// GPU kernel cache the rules let a worker keep.
#include "service/daemon/worker/landlock.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

#include "service/daemon/worker/gpu_cache.h"

namespace tc::daemon {
namespace {

namespace fs = std::filesystem;

// What a child found, one bit per check, as its exit code.
enum : int {
  kReadInRoot = 1,
  kWroteInRoot = 2,
  kOutsideDenied = 4,
  kRenamedInRoot = 8,
  kNamedAThread = 16,      // its own /proc files are writable (libraries name their threads)
  kOthersProcDenied = 32,  // another process's are not
  kWroteInGpuCache = 64,   // where its GPU drivers keep compiled kernels (gpu_cache.h)
};

// pthread_setname_np on a thread other than the caller writes /proc/self/task/TID/comm. The
// other thread waits until it has been named.
bool names_another_thread() {
  std::promise<void> named_it;
  std::thread other([done = named_it.get_future()]() mutable { done.wait(); });
  bool named = pthread_setname_np(other.native_handle(), "tc-named") == 0;
  named_it.set_value();
  other.join();
  return named;
}

int sandboxed_checks(const fs::path& root, const fs::path& outside, const fs::path& gpu_cache) {
  if (!apply_landlock(worker_landlock_paths({root.string()}, gpu_cache.string())).is_ok())
    return 100;
  int found = 0;
  if (int fd = open((root / "in.txt").c_str(), O_RDONLY); fd >= 0) found |= kReadInRoot, close(fd);
  std::string temp = (root / ".out.partial").string();
  if (int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644); fd >= 0) {
    found |= kWroteInRoot;
    close(fd);
    if (rename(temp.c_str(), (root / "out.txt").c_str()) == 0) found |= kRenamedInRoot;
  }
  int fd = open((outside / "secret.txt").c_str(), O_RDONLY);
  if (fd < 0 && errno == EACCES) found |= kOutsideDenied;
  if (fd >= 0) close(fd);
  if (names_another_thread()) found |= kNamedAThread;
  // As a driver fills its cache: a folder of its own, a file in it.
  fs::path kernels = gpu_cache / "cuda" / "ab";
  std::error_code made;
  if (fs::create_directories(kernels, made) && std::ofstream(kernels / "kernel").put('k').good())
    found |= kWroteInGpuCache;
  // The test's own process: root may write its comm, the rules may not let the child.
  std::string parent = "/proc/" + std::to_string(getppid()) + "/comm";
  fd = open(parent.c_str(), O_WRONLY);
  if (fd < 0 && errno == EACCES) found |= kOthersProcDenied;
  if (fd >= 0) close(fd);
  return found;
}

TEST(Landlock, AWorkerSeesItsRootsAndNothingBeside) {
  std::string why;
  if (landlock_abi(&why) == 0) GTEST_SKIP() << "no Landlock here: " << why;
  // Under /tmp, which the rules do not name (unlike /usr, /etc, /proc, /sys, /dev).
  fs::path base = fs::temp_directory_path() / ("tc-landlock-" + std::to_string(getpid()));
  fs::path root = base / "media", outside = base / "elsewhere", gpu_cache = base / "gpu-cache";
  fs::create_directories(root);
  fs::create_directories(gpu_cache / "cuda");
  fs::create_directories(outside);
  std::ofstream(root / "in.txt") << "input";
  std::ofstream(outside / "secret.txt") << "secret";

  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(sandboxed_checks(root, outside, gpu_cache));
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  int found = WEXITSTATUS(status);
  ASSERT_NE(found, 100) << "apply_landlock failed";
  EXPECT_TRUE(found & kReadInRoot);
  EXPECT_TRUE(found & kWroteInRoot);
  EXPECT_TRUE(found & kRenamedInRoot) << "the temp-then-rename publish";
  EXPECT_TRUE(found & kOutsideDenied);
  EXPECT_TRUE(found & kNamedAThread) << "the worker's own /proc files are read-only";
  EXPECT_TRUE(found & kOthersProcDenied) << "another process's /proc files are writable";
  EXPECT_TRUE(found & kWroteInGpuCache) << "the GPU kernel cache is read-only";
  // This process is not restricted: the rules were the child's alone.
  EXPECT_TRUE(std::ifstream(outside / "secret.txt").good());
  fs::remove_all(base);
}

TEST(Landlock, WorkerPathsAreTheRootsPlusSystemDirectories) {
  LandlockPaths paths = worker_landlock_paths({"/srv/media"});
  EXPECT_EQ(paths.read_write, std::vector<std::string>{"/srv/media"});
  EXPECT_EQ(worker_landlock_paths({"/srv/media"}, "/var/lib/transcoded/gpu-cache").read_write,
            (std::vector<std::string>{"/srv/media", "/var/lib/transcoded/gpu-cache"}));
  // Never the whole file system, nor the places a job's files could hide.
  for (const std::string& path : paths.read_only) {
    EXPECT_NE(path, "/");
    EXPECT_NE(path, "/tmp");
    EXPECT_NE(path, "/home");
    EXPECT_NE(path, "/var");
  }
}

// The daemon makes a folder per driver, this user's alone, and a worker points each driver at
// its folder.
TEST(GpuCache, AFolderPerDriverThisUsersAlone) {
  fs::path dir = fs::temp_directory_path() / ("tc-gpu-cache-" + std::to_string(getpid()));
  ASSERT_TRUE(make_gpu_cache(dir.string()).is_ok());
  EXPECT_TRUE(fs::is_directory(dir / "cuda"));
  EXPECT_TRUE(fs::is_directory(dir / "mesa"));
  struct stat info {};
  ASSERT_EQ(stat(dir.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);
  EXPECT_TRUE(make_gpu_cache(dir.string()).is_ok()) << "a daemon's restart finds it made";
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    use_gpu_cache(dir.string());
    const char* cuda = std::getenv("CUDA_CACHE_PATH");
    const char* mesa = std::getenv("MESA_SHADER_CACHE_DIR");
    _exit(cuda && mesa && fs::path(cuda) == dir / "cuda" && fs::path(mesa) == dir / "mesa" ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  fs::remove_all(dir);
  // A path under a file cannot be made: the error names it.
  Status bad = make_gpu_cache("/proc/self/status/gpu-cache");
  EXPECT_EQ(bad.code(), Code::kInternal);
  EXPECT_NE(bad.message().find("/proc/self/status/gpu-cache"), std::string::npos) << bad.message();
}

}  // namespace
}  // namespace tc::daemon
