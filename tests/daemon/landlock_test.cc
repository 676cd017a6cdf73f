// Landlock as a worker applies it: in a child process (it cannot be lifted), what the rules
// allow still works and a file beside the roots cannot be opened, even by its real path.
#include "service/daemon/landlock.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <thread>

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
};

// pthread_setname_np on a thread other than the caller writes /proc/self/task/TID/comm.
bool names_another_thread() {
  std::thread other([] { std::this_thread::sleep_for(std::chrono::milliseconds(200)); });
  bool named = pthread_setname_np(other.native_handle(), "tc-named") == 0;
  other.join();
  return named;
}

int sandboxed_checks(const fs::path& root, const fs::path& outside) {
  if (!apply_landlock(worker_landlock_paths({root.string()})).is_ok()) return 100;
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
  fs::path root = base / "media", outside = base / "elsewhere";
  fs::create_directories(root);
  fs::create_directories(outside);
  std::ofstream(root / "in.txt") << "input";
  std::ofstream(outside / "secret.txt") << "secret";

  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(sandboxed_checks(root, outside));
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
  // This process is not restricted: the rules were the child's alone.
  EXPECT_TRUE(std::ifstream(outside / "secret.txt").good());
  fs::remove_all(base);
}

TEST(Landlock, WorkerPathsAreTheRootsPlusSystemDirectories) {
  LandlockPaths paths = worker_landlock_paths({"/srv/media"});
  EXPECT_EQ(paths.read_write, std::vector<std::string>{"/srv/media"});
  // Never the whole file system, nor the places a job's files could hide.
  for (const std::string& path : paths.read_only) {
    EXPECT_NE(path, "/");
    EXPECT_NE(path, "/tmp");
    EXPECT_NE(path, "/home");
    EXPECT_NE(path, "/var");
  }
}

}  // namespace
}  // namespace tc::daemon
