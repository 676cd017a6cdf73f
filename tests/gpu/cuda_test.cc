// The cuda backend on a real NVIDIA GPU: NVDEC decode to CUDA frames, scale_cuda per branch,
// NVENC where the GPU has it, else hwdownload + libx264. Skips, saying why, without such a GPU.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "service/common/exit_codes.h"
#include "tests/support/media_tools.h"

namespace tc::testing {
namespace {

class CudaBackend : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    shared_ = new TempDir();
    make_clip(*shared_ / "in.mp4", {.width = 1920, .height = 1080, .seconds = 2});
  }
  static void TearDownTestSuite() { delete shared_; }
  static std::string input() { return *shared_ / "in.mp4"; }

  void SetUp() override {
    ProcessResult plan =
        transcode({"run", input(), dir_ / "x.mp4", "--backend", "cuda", "--dry-run"});
    if (plan.exit_code == kExitDevice) GTEST_SKIP() << "no usable CUDA device: " << plan.err;
    ASSERT_EQ(plan.exit_code, 0) << plan.err;
    plan_ = plan.out;
  }

  static std::string device_of(const nlohmann::json& report, const std::string& stage) {
    for (const auto& entry : report["stages"])
      if (entry["name"] == stage) return entry["device"];
    return "<no stage " + stage + ">";
  }

  void expect_video(const std::string& path, int width, int height) {
    std::optional<ProbeInfo> info = ffprobe(path);
    ASSERT_TRUE(info && info->video) << path;
    EXPECT_EQ(info->video->codec, "h264");
    EXPECT_EQ(info->video->width, width);
    EXPECT_EQ(info->video->height, height);
    EXPECT_EQ(info->video->frames, 60);
    EXPECT_GE(psnr(path, input()), 30.0) << path;
  }

  TempDir dir_;
  std::string plan_;
  static TempDir* shared_;
};

TempDir* CudaBackend::shared_ = nullptr;

TEST_F(CudaBackend, DecodesAndScalesOnTheGpu) {
  EXPECT_NE(plan_.find("decode: h264 (cuda hwaccel) [cuda 0"), std::string::npos) << plan_;
  EXPECT_NE(plan_.find("scale_cuda"), std::string::npos) << plan_;
  EXPECT_EQ(plan_.find("hwupload"), std::string::npos) << plan_;
  ProcessResult run = transcode(
      {"run", input(), dir_ / "720p.mp4", "--backend", "cuda", "--size", "1280x720", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  expect_video(dir_ / "720p.mp4", 1280, 720);
  nlohmann::json report = nlohmann::json::parse(run.out);
  EXPECT_EQ(device_of(report, "decode").rfind("cuda", 0), 0u) << report["stages"].dump();
  EXPECT_EQ(device_of(report, "filter").rfind("cuda", 0), 0u);
}

TEST_F(CudaBackend, EncodesWithNvencOrSaysWhyNot) {
  ProcessResult run = transcode(
      {"run", input(), dir_ / "out.mp4", "--backend", "cuda", "--size", "1280x720", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  nlohmann::json report = nlohmann::json::parse(run.out);
  std::string encoder = report["outputs"][0]["encoder"];
  if (encoder == "h264_nvenc") {
    EXPECT_EQ(device_of(report, "encode out0").rfind("cuda", 0), 0u);
  } else {
    // A GPU without NVENC (the H200): the probe found out, and the plan downloads the frames.
    EXPECT_EQ(encoder, "libx264");
    EXPECT_EQ(device_of(report, "download out0").rfind("cuda", 0), 0u) << report["stages"].dump();
  }
}

TEST_F(CudaBackend, LadderOfThreeFromOneDecode) {
  ProcessResult run =
      transcode({"run", input(), "--backend", "cuda", "--json", "-o", dir_ / "a.mp4", "-o",
                 dir_ / "b.mp4", "--size", "1280x720", "-o", dir_ / "c.mp4", "--size", "640x360"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  nlohmann::json report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report["frames_decoded"], 60);
  expect_video(dir_ / "a.mp4", 1920, 1080);
  expect_video(dir_ / "b.mp4", 1280, 720);
  expect_video(dir_ / "c.mp4", 640, 360);
}

}  // namespace
}  // namespace tc::testing
