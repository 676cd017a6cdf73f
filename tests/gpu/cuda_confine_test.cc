// A cuda job under the daemon worker's confinement (issue 43), without the daemon: the GPU
// machine has no gRPC, so this links the worker's own confinement (worker_confine.h: no_new_privs,
// capabilities dropped, seccomp, Landlock to worker_landlock_paths) and runs the job in the
// confined process through prepare_job/run_prepared, as `transcoded --worker` does. While the job
// runs, every thread of the process (the job's, the codecs', the CUDA driver's) is asked, by a
// signal whose handler runs on that thread, to open a file beside the media roots: each must be
// refused. Threads that block every signal (the CUDA driver's own) are checked through
// /proc/self/task/TID/status instead. Skips, saying why, without a usable CUDA device.
#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "pipeline/exec/executor.h"
#include "pipeline/io/access.h"
#include "service/common/exit_codes.h"
#include "service/daemon/worker/gpu_cache.h"
#include "service/daemon/worker/landlock.h"
#include "service/daemon/worker/worker_confine.h"
#include "tests/support/media_tools.h"

namespace tc::testing {
namespace {

namespace fs = std::filesystem;

// What one thread's handler found: errno of its open outside the roots (0: it opened).
constexpr int kMaxThreads = 256;
std::array<std::atomic<int>, kMaxThreads> g_errno_of;
std::array<std::atomic<pid_t>, kMaxThreads> g_tid_of;
std::atomic<int> g_answers{0};
const char* g_outside = nullptr;

void open_outside(int) {  // async-signal-safe: open, close, gettid, atomics
  int saved = errno;
  int fd = ::open(g_outside, O_RDONLY | O_CLOEXEC);
  int slot = g_answers.fetch_add(1);
  if (slot < kMaxThreads) {
    g_tid_of[slot] = static_cast<pid_t>(::syscall(SYS_gettid));
    g_errno_of[slot] = fd >= 0 ? 0 : errno;
  }
  if (fd >= 0) ::close(fd);
  errno = saved;
}

std::vector<pid_t> threads_now() {
  std::vector<pid_t> tids;
  if (DIR* dir = ::opendir("/proc/self/task")) {
    while (dirent* entry = ::readdir(dir))
      if (entry->d_name[0] != '.') tids.push_back(std::atoi(entry->d_name));
    ::closedir(dir);
  }
  return tids;
}

std::string status_field(pid_t tid, const std::string& field) {
  std::ifstream status("/proc/self/task/" + std::to_string(tid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind(field + ":", 0) == 0)
      return line.substr(line.find_first_not_of(" \t", field.size() + 1));
  return "";
}

// The /dev files this process holds open: what the job's CUDA use needed.
std::set<std::string> open_device_files() {
  std::set<std::string> found;
  for (const auto& fd : fs::directory_iterator("/proc/self/fd")) {
    std::error_code error;
    fs::path target = fs::read_symlink(fd.path(), error);
    if (!error && target.string().rfind("/dev/", 0) == 0) found.insert(target.string());
  }
  return found;
}

struct Probe {
  std::vector<std::string> lines;  // one per thread: what it found, for the report
  int threads = 0, answered = 0, refused = 0, opened = 0, unconfined = 0;
  std::set<std::string> devices;
};

// From a pipeline thread, mid-job: every other thread opens outside; every thread's status.
Probe probe_every_thread() {
  Probe probe;
  g_answers = 0;
  std::vector<pid_t> tids = threads_now();
  pid_t self = static_cast<pid_t>(::syscall(SYS_gettid));
  for (pid_t tid : tids) ::syscall(SYS_tgkill, ::getpid(), tid, SIGUSR2);
  for (int i = 0; i < 100 && g_answers.load() < static_cast<int>(tids.size()); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  probe.threads = static_cast<int>(tids.size());
  probe.answered = std::min(g_answers.load(), kMaxThreads);
  for (int i = 0; i < probe.answered; ++i)
    (g_errno_of[i] == EACCES ? probe.refused : probe.opened)++;
  for (pid_t tid : tids) {
    std::string name;
    std::ifstream("/proc/self/task/" + std::to_string(tid) + "/comm") >> name;
    std::string answer = "no answer (signals blocked: " + status_field(tid, "SigBlk") + ")";
    for (int i = 0; i < probe.answered; ++i)
      if (g_tid_of[i] == tid)
        answer = g_errno_of[i] == 0 ? "OPENED" : std::string("refused: ") + strerror(g_errno_of[i]);
    bool confined = status_field(tid, "NoNewPrivs") == "1" && status_field(tid, "Seccomp") == "2" &&
                    status_field(tid, "CapEff") == "0000000000000000" &&
                    status_field(tid, "CapPrm") == "0000000000000000" &&
                    status_field(tid, "CapBnd") == "0000000000000000";
    if (!confined) probe.unconfined++;
    probe.lines.push_back(std::to_string(tid) + (tid == self ? "*" : "") + " " + name + ": " +
                          (confined ? "NoNewPrivs 1, Seccomp 2, Cap* 0" : "NOT CONFINED") +
                          "; open outside " + answer);
  }
  probe.devices = open_device_files();
  return probe;
}

class CudaWorkerConfine : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(root());
    // Long enough that the probe lands mid-job on a 16-core machine.
    make_clip(root() + "/in.mp4", {.width = 1920, .height = 1080, .seconds = 6});
    ProcessResult plan =
        transcode({"run", root() + "/in.mp4", state_ / "x.mp4", "--backend", "cuda", "--dry-run"});
    if (plan.exit_code == kExitDevice) GTEST_SKIP() << "no usable CUDA device: " << plan.err;
    ASSERT_EQ(plan.exit_code, 0) << plan.err;
    std::ofstream(outside()) << "not the worker's";
    ASSERT_TRUE(daemon::make_gpu_cache(cache()).is_ok());
  }
  std::string root() { return state_ / "media"; }
  std::string cache() { return state_ / "gpu-cache"; }
  std::string outside() { return state_ / "secret.txt"; }

  // In a child, as a worker: GPU cache, confinement with `paths`, then one cuda job 1080p ->
  // 720p + 360p probed mid-run. Writes the child's findings to `report`; its exit code is 0
  // when the job succeeded and every check held.
  int run_confined_job(const daemon::LandlockPaths& paths, const std::string& report) {
    pid_t child = ::fork();
    if (child == 0) ::_exit(confined_child(paths, report));
    int status = 0;
    ::waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  int confined_child(const daemon::LandlockPaths& paths, const std::string& report_path) {
    std::ofstream report(report_path);
    g_outside = strdup(outside().c_str());
    struct sigaction action {};
    action.sa_handler = open_outside;
    action.sa_flags = SA_RESTART;
    ::sigaction(SIGUSR2, &action, nullptr);
    daemon::use_gpu_cache(cache());
    Status confined = daemon::confine_this_process(true, paths);
    report << "confined: " << (confined.is_ok() ? "yes" : confined.message()) << "\n";
    if (!confined.is_ok()) return 10;
    JobSpec spec;
    spec.input = root() + "/in.mp4";
    spec.backend = BackendKind::kCuda;
    spec.outputs.resize(2);
    spec.outputs[0].path = root() + "/720.mp4";
    spec.outputs[0].width = 1280, spec.outputs[0].height = 720;
    spec.outputs[1].path = root() + "/360.mp4";
    spec.outputs[1].width = 640, spec.outputs[1].height = 360;
    RunOptions options;
    Result<io::Roots> roots = io::Roots::open_media_roots({root()});
    if (!roots.is_ok()) return report << "roots: " << roots.status().message() << "\n", 11;
    options.access = io::Access{std::make_shared<const io::Roots>(std::move(*roots)), {}};
    options.progress_interval_s = 0.05;
    Probe probe;
    std::atomic<bool> probed{false};
    options.on_progress = [&](const Progress&) {
      if (!probed.exchange(true)) probe = probe_every_thread();
    };
    Result<JobReport> ran = run_job(spec, options);
    report << "job: " << (ran.is_ok() ? "succeeded" : ran.status().message()) << "\n";
    if (ran.is_ok())
      for (const auto& stage : ran->stages)
        report << "  stage " << stage.name << ": " << stage.device.to_string() << " "
               << stage.component << "\n";
    report << "threads " << probe.threads << ", answered " << probe.answered << ", refused "
           << probe.refused << ", opened " << probe.opened << ", unconfined " << probe.unconfined
           << "\n";
    for (const std::string& line : probe.lines) report << "  " << line << "\n";
    report << "device files open mid-job:";
    for (const std::string& device : probe.devices) report << " " << device;
    report << "\n";
    int cached = 0;
    std::error_code error;
    for (auto it = fs::recursive_directory_iterator(cache(), error);
         it != fs::recursive_directory_iterator(); ++it)
      cached += it->is_regular_file();
    report << "GPU kernel cache: " << cached << " files\n";
    bool held = ran.is_ok() && probed && probe.opened == 0 && probe.unconfined == 0 &&
                probe.answered >= 2 && probe.refused == probe.answered;
    return held ? 0 : 12;
  }

  TempDir state_;
};

TEST_F(CudaWorkerConfine, ACudaJobRunsConfinedAndEveryThreadIsRefusedOutsideTheRoots) {
  std::string report = state_ / "report.txt";
  int code = run_confined_job(daemon::worker_landlock_paths({root()}, cache()), report);
  std::string found = read_file(report);
  std::printf("%s", found.c_str());
  RecordProperty("confinement", found);
  EXPECT_EQ(code, 0) << found;
  EXPECT_NE(found.find("stage decode: cuda"), std::string::npos) << found;
  EXPECT_EQ(ffprobe(root() + "/720.mp4")->video->frames, 180);
  EXPECT_EQ(ffprobe(root() + "/360.mp4")->video->frames, 180);
}

}  // namespace
}  // namespace tc::testing
