// Which outputs x264 runs without AVX-512, and how a plan says so (plan/x264_avx512.h).
#include "pipeline/plan/x264_avx512.h"

#include <gtest/gtest.h>

#include <algorithm>  // std::count: GCC 14 no longer brings it in through gtest

#include "tests/unit/fixtures.h"

namespace tc {
namespace {

using testing::intel_gpu;
using testing::inventory;
using testing::job;
using testing::media;
using testing::output;
using testing::stage;

Plan planned(std::vector<OutputSpec> outputs, const HwInventory& devices = {}) {
  return testing::value_or_stop(make_plan(job(std::move(outputs)), media(), devices));
}

bool misreads_at(int width, int height, const std::string& preset = "") {
  OutputSpec spec = output("a.mp4", width, height);
  spec.preset = preset;
  return x264_avx512_misreads(planned({spec}).outputs[0]);
}

TEST(X264Avx512, MisreadsWhereTheMacroblocksAcrossAreNotAMultipleOfEight) {
  EXPECT_TRUE(misreads_at(320, 240));   // 20 macroblocks
  EXPECT_TRUE(misreads_at(426, 240));   // 27
  EXPECT_TRUE(misreads_at(854, 480));   // 54
  EXPECT_TRUE(misreads_at(960, 540));   // 60
  EXPECT_TRUE(misreads_at(1366, 768));  // 86
  EXPECT_FALSE(misreads_at(128, 96));
  EXPECT_FALSE(misreads_at(640, 360));
  EXPECT_FALSE(misreads_at(1280, 720));
  EXPECT_FALSE(misreads_at(1920, 1080));
  EXPECT_FALSE(misreads_at(1016, 576));  // 63.5: a part-macroblock counts whole, 64
}

TEST(X264Avx512, PresetsWithoutMbtreeDoNot) {
  EXPECT_FALSE(misreads_at(426, 240, "ultrafast"));
  EXPECT_FALSE(misreads_at(426, 240, "superfast"));
  EXPECT_TRUE(misreads_at(426, 240, "veryfast"));
  EXPECT_TRUE(misreads_at(426, 240, "slow"));
}

TEST(X264Avx512, OtherEncodersAndCopiesDoNot) {
  EXPECT_FALSE(
      x264_avx512_misreads(planned({output("a.webm", 426, 240, VideoCodec::kVp9)}).outputs[0]));
  EXPECT_FALSE(
      x264_avx512_misreads(planned({output("a.mp4", 0, 0, VideoCodec::kCopy)}).outputs[0]));
  Plan vaapi = planned({output("a.mp4", 426, 240)}, inventory({intel_gpu()}));
  ASSERT_EQ(vaapi.outputs[0].video.encoder, "h264_vaapi");
  EXPECT_FALSE(x264_avx512_misreads(vaapi.outputs[0]));
}

TEST(X264Avx512, OnSuchACpuTheOutputStopsAtAvx2AndSaysSo) {
  Plan plan = planned({output("a.mp4", 1280, 720), output("b.mp4", 426, 240)});
  keep_x264_off_avx512(plan, true);
  const Options& kept = plan.outputs[0].video.options;
  EXPECT_EQ(std::count(kept.begin(), kept.end(),
                       std::pair<std::string, std::string>{"x264-params", "asm=AVX2"}),
            0);
  const Options& stopped = plan.outputs[1].video.options;
  EXPECT_EQ(std::count(stopped.begin(), stopped.end(),
                       std::pair<std::string, std::string>{"x264-params", "asm=AVX2"}),
            1);
  EXPECT_EQ(stage(plan, "encode out0")->component, "libx264");
  EXPECT_EQ(stage(plan, "encode out1")->component,
            "libx264 (without AVX-512: its mbtree misreads rows 426 wide)");
  // The ffmpeg command the plan prints writes the same bytes.
  std::string command =
      ffmpeg_command(plan, job({output("a.mp4", 1280, 720), output("b.mp4", 426, 240)}));
  EXPECT_EQ(testing::occurrences(command, "-x264-params asm=AVX2"), 1) << command;
}

TEST(X264Avx512, ACpuWithoutItChangesNothing) {
  Plan plan = planned({output("b.mp4", 426, 240)});
  Options before = plan.outputs[0].video.options;
  keep_x264_off_avx512(plan, false);
  EXPECT_EQ(plan.outputs[0].video.options, before);
  EXPECT_EQ(stage(plan, "encode out0")->component, "libx264");
}

}  // namespace
}  // namespace tc
