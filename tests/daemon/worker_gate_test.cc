// The publish gate through a real worker process (`transcoded --worker`) and the supervisor:
// the worker asks once its outputs are complete, under its attempt's temp names; a refusal
// fails the job with the gate's reason and leaves no output and no partial; an allowed worker
// publishes; the watchdog does not count the time the gate takes as a stall.
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "pipeline/exec/executor.h"
#include "service/daemon/worker/worker_supervisor.h"
#include "tests/support/media_tools.h"

namespace tc::daemon {
namespace {

namespace fs = std::filesystem;
using tc::testing::ffprobe;
using tc::testing::make_clip;
using tc::testing::TempDir;

constexpr int kAttempt = 2;

std::string transcoded_binary() {
  const char* value = std::getenv("TRANSCODED");
  return value && *value ? value : TC_DEFAULT_TRANSCODED;
}

class WorkerGate : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ::signal(SIGPIPE, SIG_IGN);  // as the daemon does: a worker gone is judged by its exit
    clips_ = new TempDir();
    make_clip(*clips_ / "in.mp4", {.seconds = 1});
  }
  static void TearDownTestSuite() { delete clips_; }
  void SetUp() override { fs::copy_file(*clips_ / "in.mp4", dir_ / "in.mp4"); }

  WorkerOutcome run(const PublishCheck& check, const SuperviseOptions& options = {}) {
    WorkerLaunch launch;
    launch.executable = transcoded_binary();
    launch.node.media_roots = {dir_.path()};
    WorkerJob job;
    job.spec.input = dir_ / "in.mp4";
    job.spec.backend = BackendKind::kSoftware;
    job.spec.outputs.push_back(OutputSpec{});
    job.spec.outputs[0].path = output_;
    job.spec.outputs[0].width = 160;
    job.spec.outputs[0].height = 120;
    job.attempt = kAttempt;
    Result<std::unique_ptr<WorkerProcess>> worker = WorkerProcess::spawn(launch);
    if (!worker.is_ok()) return {worker.status(), {}};
    if (Status sent = (*worker)->send_job(job); !sent.is_ok()) return {sent, {}};
    std::atomic<int> stop{kStopNone};
    return supervise(**worker, options, stop, {}, {}, [&] {
      ++checks_;
      return check();
    });
  }
  // What the gate sees: the complete output under the attempt's temp name, nothing published.
  void expect_complete_and_unpublished() {
    std::string partial = partial_path(output_, kAttempt);
    std::optional<tc::testing::ProbeInfo> probed = ffprobe(partial);
    EXPECT_TRUE(probed && probed->video) << partial << " is missing or not complete media";
    EXPECT_FALSE(fs::exists(output_)) << "published before the gate";
  }

  static TempDir* clips_;
  TempDir dir_;
  std::string output_ = dir_ / "out.mp4";
  int checks_ = 0;
};

TempDir* WorkerGate::clips_ = nullptr;

TEST_F(WorkerGate, ARefusalFailsTheJobWithTheReasonAndLeavesNothing) {
  const Status fenced(Code::kCancelled, "attempt 2 no longer owns the job: attempt 3 does");
  WorkerOutcome outcome = run([&] {
    expect_complete_and_unpublished();
    return fenced;
  });
  EXPECT_EQ(checks_, 1);
  EXPECT_EQ(outcome.status.code(), fenced.code());
  EXPECT_EQ(outcome.status.message(), fenced.message());
  EXPECT_EQ(dir_.entries(), std::vector<std::string>{"in.mp4"}) << "an output or partial left";
}

TEST_F(WorkerGate, AnAllowedWorkerPublishes) {
  WorkerOutcome outcome = run([&] {
    expect_complete_and_unpublished();
    return Status::ok();
  });
  ASSERT_TRUE(outcome.status.is_ok()) << outcome.status.to_string();
  EXPECT_EQ(checks_, 1);
  std::optional<tc::testing::ProbeInfo> probed = ffprobe(output_);
  ASSERT_TRUE(probed && probed->video);
  EXPECT_EQ(probed->video->width, 160);
  EXPECT_EQ(outcome.report.outputs.size(), 1u);
  EXPECT_EQ(dir_.entries(), (std::vector<std::string>{"in.mp4", "out.mp4"}));
}

// A fence check that takes longer than the stall timeout (a slow database) is not the worker's
// stall: it waits for the answer, silent, and is not killed when the answer is sent.
TEST_F(WorkerGate, TheWatchdogSparesAWorkerWaitingForTheAnswer) {
  SuperviseOptions options;
  options.stall_timeout_s = 3;
  WorkerOutcome outcome = run(
      [] {
        std::this_thread::sleep_for(std::chrono::seconds(4));
        return Status::ok();
      },
      options);
  ASSERT_TRUE(outcome.status.is_ok()) << outcome.status.to_string();
  EXPECT_TRUE(fs::exists(output_));
}

}  // namespace
}  // namespace tc::daemon
