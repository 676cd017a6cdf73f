// A worker is confined whole (worker_confine.h): in a child process, as a worker confines itself,
// every thread - the one that confined and one started after - finds no_new_privs set, no
// capability left, the seccomp filter on (no new namespace, no reading another process's
// memory), and a file beside the roots (or the daemon's secrets under /etc) closed,
// while what its libraries read under /etc stays open. A process that already has a second
// thread is refused. And a worker's environment holds none of the daemon's secrets.
#include "service/daemon/worker/worker_confine.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <sstream>
#include <thread>

#include "service/daemon/worker/child_environment.h"

namespace tc::daemon {
namespace {

namespace fs = std::filesystem;

// One line of /proc/thread-self/status ("NoNewPrivs:\t1"): the value, or "" when missing.
std::string own_status(const std::string& field) {
  std::ifstream status("/proc/thread-self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind(field + ":", 0) == 0)
      return line.substr(line.find_first_not_of(" \t", field.size() + 1));
  return "";
}

bool open_denied(const fs::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) ::close(fd);
  return fd < 0 && errno == EACCES;
}

bool opens(const fs::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) ::close(fd);
  return fd >= 0;
}

struct Paths {
  fs::path root, outside_file, etc_secret;
};

// What the calling thread finds, as words a failure message can show.
std::string checks_of_this_thread(const Paths& paths) {
  std::string found;
  if (own_status("NoNewPrivs") == "1") found += "no_new_privs ";
  if (own_status("CapEff") == "0000000000000000" && own_status("CapPrm") == "0000000000000000" &&
      own_status("CapBnd") == "0000000000000000")
    found += "no-capabilities ";
  if (opens(paths.root / "in.txt")) found += "root-read ";
  if (open_denied(paths.outside_file)) found += "outside-denied ";
  if (open_denied(paths.etc_secret)) found += "etc-secret-denied ";
  if (opens("/etc/ld.so.cache")) found += "ld.so.cache-read ";
  if (own_status("Seccomp") == "2") found += "seccomp-filter ";
  // What a compromised decoder would try next: a namespace of its own, or another process.
  if (::unshare(CLONE_NEWUSER) != 0 && errno == EPERM) found += "unshare-refused ";
  if (::syscall(SYS_process_vm_readv, ::getppid(), nullptr, 0, nullptr, 0, 0) != 0 &&
      errno == EPERM)
    found += "process_vm_readv-refused ";
  return found;
}

// In a child: confine, then check from this thread and from one started after; both answers go
// back on `out`.
[[noreturn]] void confined_child(const Paths& paths, int out) {
  Status confined = confine_this_process(true, worker_landlock_paths({paths.root.string()}));
  std::string report = confined.is_ok() ? "" : "NOT CONFINED: " + confined.message();
  if (confined.is_ok()) {
    std::string first = checks_of_this_thread(paths), second;
    std::thread later([&] { second = checks_of_this_thread(paths); });
    later.join();
    report = first + "|" + second;
  }
  (void)!::write(out, report.data(), report.size());
  _exit(0);
}

std::string run_in_child(const std::function<void(int)>& body) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return "pipe failed";
  pid_t child = fork();
  if (child == 0) {
    ::close(pipe_fds[0]);
    body(pipe_fds[1]);
    _exit(0);
  }
  ::close(pipe_fds[1]);
  std::string report;
  char buffer[512];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) report.append(buffer, n);
  ::close(pipe_fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  return report;
}

class WorkerConfine : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (landlock_abi(&why) == 0) GTEST_SKIP() << "no Landlock here: " << why;
    // Under /tmp, which the rules do not name; and a folder of /etc the rules do not name
    // either, as an operator's /etc/transcoded holding the token.
    fs::create_directories(base / "media");
    fs::create_directories(base / "elsewhere");
    std::ofstream(paths.root / "in.txt") << "input";
    std::ofstream(paths.outside_file) << "secret";
    fs::create_directories(etc_dir);
    std::ofstream(paths.etc_secret) << "token";
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(base, ignored);
    fs::remove_all(etc_dir, ignored);
  }

  fs::path base = fs::temp_directory_path() / ("tc-confine-" + std::to_string(getpid()));
  fs::path etc_dir = "/etc/tc-confine-test-" + std::to_string(getpid());
  Paths paths{base / "media", base / "elsewhere" / "secret.txt", etc_dir / "token"};
};

TEST_F(WorkerConfine, EveryThreadFindsItselfConfined) {
  std::string report = run_in_child([&](int out) { confined_child(paths, out); });
  ASSERT_EQ(report.find("NOT CONFINED"), std::string::npos) << report;
  size_t bar = report.find('|');
  ASSERT_NE(bar, std::string::npos) << report;
  std::string expected = "no_new_privs ";
  // Only a privileged process has capabilities to drop; an unprivileged one has none already.
  if (::geteuid() == 0) expected += "no-capabilities ";
  expected +=
      "root-read outside-denied etc-secret-denied ld.so.cache-read seccomp-filter "
      "unshare-refused process_vm_readv-refused ";
  EXPECT_EQ(report.substr(0, bar), expected) << "the thread that confined the process";
  EXPECT_EQ(report.substr(bar + 1), expected) << "a thread started after";
  // This process is not restricted: the rules were the child's alone.
  EXPECT_TRUE(opens(paths.outside_file));
}

TEST_F(WorkerConfine, AProcessWithASecondThreadIsRefused) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "TSan builds allow its runtime's own thread (worker_confine.cc)";
#endif
  std::string report = run_in_child([&](int out) {
    std::promise<void> release;
    std::thread waiting([future = release.get_future()]() mutable { future.wait(); });
    Status confined = confine_this_process(true, worker_landlock_paths({paths.root.string()}));
    release.set_value();
    waiting.join();
    std::string text = confined.is_ok() ? "confined" : confined.message();
    (void)!::write(out, text.data(), text.size());
  });
  EXPECT_NE(report.find("2 threads"), std::string::npos) << report;
}

TEST(ChildEnvironment, KeepsWhatLibrariesReadAndNoSecret) {
  std::vector<std::string> entries = {
      "PATH=/usr/bin",          "PGPASSWORD=hunter2",      "LIBVA_DRIVER_NAME=iHD",
      "TRANSCODE_TOKEN=t0ken",  "AWS_SECRET_ACCESS_KEY=k", "LC_ALL=C.UTF-8",
      "VK_ICD_FILENAMES=/x",    "TC_TEST_FAULT=slow",      "CUDA_VISIBLE_DEVICES=0",
      "PGPASSFILE=/etc/pgpass", "LD_PRELOAD=/tmp/evil.so", "ASAN_OPTIONS=detect_leaks=1"};
  std::vector<char*> environment;
  for (std::string& entry : entries) environment.push_back(entry.data());
  environment.push_back(nullptr);
  EXPECT_EQ(child_environment(environment.data()),
            (std::vector<std::string>{"PATH=/usr/bin", "LIBVA_DRIVER_NAME=iHD", "LC_ALL=C.UTF-8",
                                      "VK_ICD_FILENAMES=/x", "TC_TEST_FAULT=slow",
                                      "CUDA_VISIBLE_DEVICES=0", "ASAN_OPTIONS=detect_leaks=1"}));
}

}  // namespace
}  // namespace tc::daemon
