// The executor's publish gate, in process on clips the ffmpeg CLI makes: asked exactly once,
// when every output is complete and none has its name yet; a refusal fails the job with the
// gate's status and leaves no output and no partial, for files and for a package. The outputs
// are checked with ffprobe, an oracle we did not write.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>

extern "C" {
#include <libavutil/log.h>
}

#include "pipeline/exec/executor.h"
#include "pipeline/package/manifests.h"
#include "tests/support/media_tools.h"

namespace tc {
namespace {

namespace fs = std::filesystem;
using testing::ffprobe;
using testing::make_clip;
using testing::TempDir;

constexpr int kAttempt = 2;
const Status kFenced(Code::kInternal, "attempt 2 no longer owns the job");

std::string contents(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class PublishGate : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    av_log_set_level(AV_LOG_ERROR);  // the encoders' statistics are not this test's
    clips_ = new TempDir();
    make_clip(*clips_ / "in.mp4", {.seconds = 1});
  }
  static void TearDownTestSuite() { delete clips_; }

  void SetUp() override {
    fs::copy_file(*clips_ / "in.mp4", dir_ / "in.mp4");
    Result<io::Access> access = io::caller_access();
    ASSERT_TRUE(access.is_ok()) << access.status().to_string();
    options_.access = *access;
    options_.attempt = kAttempt;
  }

  static OutputSpec output(const std::string& path) {
    OutputSpec out;
    out.path = path;
    out.width = 160;
    out.height = 120;
    return out;
  }
  JobSpec files_job() const {
    JobSpec spec;
    spec.input = dir_ / "in.mp4";
    spec.backend = BackendKind::kSoftware;
    spec.outputs = {output(dir_ / "out.mp4"), output(dir_ / "out.mkv")};
    return spec;
  }
  JobSpec package_job() const {
    JobSpec spec;
    spec.input = dir_ / "in.mp4";
    spec.backend = BackendKind::kSoftware;
    spec.package.kind = PackageKind::kHls;
    spec.package.dir = dir_ / "pkg";
    spec.outputs = {output("low")};
    normalize(spec);  // as every entry point does: a rendition is a CMAF track
    return spec;
  }
  // A gate that records what it saw, then answers `answer`.
  void gate(const Status& answer, const std::function<void()>& look) {
    options_.publish_gate = [this, answer, look] {
      ++gate_calls_;
      look();
      return answer;
    };
  }

  // A refusing gate: the job fails with its status, and nothing but the input is left.
  void expect_refused(const JobSpec& spec) {
    gate(kFenced, [] {});
    Result<JobReport> report = run_job(spec, options_);
    ASSERT_FALSE(report.is_ok());
    EXPECT_EQ(report.status().code(), kFenced.code());
    EXPECT_EQ(report.status().message(), kFenced.message());
    EXPECT_EQ(gate_calls_, 1);
    EXPECT_EQ(dir_.entries(), std::vector<std::string>{"in.mp4"}) << "an output or partial left";
  }

  static TempDir* clips_;
  TempDir dir_;
  RunOptions options_;
  int gate_calls_ = 0;
};

TempDir* PublishGate::clips_ = nullptr;

TEST_F(PublishGate, AskedOnceWhenEveryFileIsCompleteAndBeforeAnyIsRenamed) {
  // A stale attempt's temp file beside the output: attempt 2 neither uses nor removes it.
  std::ofstream(partial_path(dir_ / "out.mp4", 1)) << "attempt 1's";
  gate(Status::ok(), [&] {
    for (const std::string name : {"out.mp4", "out.mkv"}) {
      std::string partial = partial_path(dir_ / name, kAttempt);
      ASSERT_TRUE(fs::exists(partial)) << partial;
      EXPECT_GT(fs::file_size(partial), 0u) << partial;
      std::optional<testing::ProbeInfo> probed = ffprobe(partial);
      ASSERT_TRUE(probed && probed->video) << partial << " is not complete media";
      EXPECT_EQ(probed->video->width, 160);
      EXPECT_FALSE(fs::exists(dir_ / name)) << name << " was published before the gate";
    }
  });
  Result<JobReport> report = run_job(files_job(), options_);
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  EXPECT_EQ(gate_calls_, 1);
  for (const std::string name : {"out.mp4", "out.mkv"}) {
    std::optional<testing::ProbeInfo> probed = ffprobe(dir_ / name);
    ASSERT_TRUE(probed && probed->video) << name;
    EXPECT_EQ(probed->video->height, 120);
  }
  EXPECT_EQ(dir_.entries(),
            (std::vector<std::string>{".out.mp4.a1.partial", "in.mp4", "out.mkv", "out.mp4"}));
  EXPECT_EQ(contents(partial_path(dir_ / "out.mp4", 1)), "attempt 1's");
}

TEST_F(PublishGate, ARefusalFailsTheJobWithItsStatusAndLeavesNoFile) {
  expect_refused(files_job());
}

TEST_F(PublishGate, AskedOnceWhenThePackageIsCompleteAndBeforeItIsRenamed) {
  std::string partial = partial_path(dir_ / "pkg", kAttempt);
  gate(Status::ok(), [&] {
    EXPECT_GT(fs::file_size(partial + "/" + package::kHlsMaster), 0u);
    EXPECT_GT(fs::file_size(partial + "/low/" + package::kHlsMediaPlaylist), 0u);
    std::optional<testing::ProbeInfo> probed = ffprobe(partial + "/" + package::kHlsMaster);
    EXPECT_TRUE(probed && probed->video) << "the partial package does not play";
    EXPECT_FALSE(fs::exists(dir_ / "pkg")) << "the package was published before the gate";
  });
  Result<JobReport> report = run_job(package_job(), options_);
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  EXPECT_EQ(gate_calls_, 1);
  std::optional<testing::ProbeInfo> probed = ffprobe(dir_ / "pkg" + "/" + package::kHlsMaster);
  ASSERT_TRUE(probed && probed->video);
  EXPECT_EQ(probed->video->width, 160);
  EXPECT_EQ(dir_.entries(), (std::vector<std::string>{"in.mp4", "pkg"}));
}

TEST_F(PublishGate, ARefusedPackageLeavesNoDirectory) {
  expect_refused(package_job());
}

TEST_F(PublishGate, NotAskedWhenTheJobStopsBeforeItsOutputsAreComplete) {
  gate(Status::ok(), [] {});
  std::atomic<bool> cancel{false};
  options_.cancel = &cancel;
  // Cancelled mid-run, its temp files open.
  options_.progress_interval_s = 0;
  options_.on_progress = [&](const Progress&) {
    EXPECT_TRUE(fs::exists(partial_path(dir_ / "out.mp4", kAttempt)));
    cancel = true;
  };
  Result<JobReport> report = run_job(files_job(), options_);
  ASSERT_FALSE(report.is_ok());
  EXPECT_EQ(report.status().code(), Code::kCancelled);
  EXPECT_EQ(gate_calls_, 0);
  EXPECT_EQ(dir_.entries(), std::vector<std::string>{"in.mp4"});
}

}  // namespace
}  // namespace tc
