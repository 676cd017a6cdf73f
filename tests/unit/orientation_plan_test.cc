// A rotated source (a phone's display matrix) is turned upright once, before the split, on every
// backend: in memory in software, by the backend's filter on the device where this FFmpeg has
// it, else in memory after a software decode. Its outputs are sized as displayed.
#include <gtest/gtest.h>

extern "C" {
#include <libavfilter/avfilter.h>
}

#include "pipeline/plan/orientation.h"
#include "pipeline/plan/plan.h"
#include "tests/unit/fixtures.h"

namespace tc {
namespace {

using testing::intel_gpu;
using testing::inventory;
using testing::job;
using testing::lavapipe;
using testing::media;
using testing::output;
using testing::stage;

bool has(const std::string& text, const std::string& what) {
  return testing::occurrences(text, what) > 0;
}

// A phone's portrait clip: stored 1920x1080, the matrix turning it 90 degrees clockwise (what
// av_display_rotation_get reads as -90).
MediaInfo phone(double rotation_deg = -90) {
  MediaInfo info = media(AV_CODEC_ID_H264, 1920, 1080);
  info.video->rotation_deg = rotation_deg;
  return info;
}

HwDevice nvidia() {  // NVDEC and NVENC for H.264
  HwDevice device;
  device.backend = BackendKind::kCuda;
  device.path = "0";
  device.driver = "nvidia";
  device.decode = {{AV_CODEC_ID_H264, 8}};
  device.encode = {{AV_CODEC_ID_H264, {true, false}}};
  device.can_scale = true;
  return device;
}

#define SKIP_WITHOUT_FILTER(name) \
  if (!avfilter_get_by_name(name)) GTEST_SKIP() << name << " is not in this FFmpeg build"

TEST(OrientationPlan, QuarterTurnsFromTheMatrix) {
  EXPECT_EQ(upright_quarter_turns(0), 0);
  EXPECT_EQ(upright_quarter_turns(-90), 1);
  EXPECT_EQ(upright_quarter_turns(180), 2);
  EXPECT_EQ(upright_quarter_turns(-180), 2);
  EXPECT_EQ(upright_quarter_turns(90), 3);
  EXPECT_EQ(upright_quarter_turns(-89.6), 1);
}

TEST(OrientationPlan, SoftwareTurnsBeforeTheSplitAndSizesAsDisplayed) {
  Result<Plan> plan =
      make_plan(job({output("full.mkv"), output("small.mkv", 0, 640)}), phone(), inventory({}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().message();
  EXPECT_EQ(plan->video_graph.text.rfind("[in]transpose=dir=clock,split=2", 0), 0u)
      << plan->video_graph.text;
  EXPECT_EQ(plan->outputs[0].width, 1080);
  EXPECT_EQ(plan->outputs[0].height, 1920);
  EXPECT_EQ(plan->outputs[1].width, 360);
  EXPECT_EQ(plan->outputs[1].height, 640);
  EXPECT_FALSE(plan->outputs[0].display_matrix);
  ASSERT_NE(stage(*plan, "turn upright"), nullptr);
  EXPECT_EQ(stage(*plan, "turn upright")->device.to_string(), "cpu");
  // The refit graph (a mid-stream change) turns the new frames too.
  EXPECT_EQ(plan->refit_video_graph.text.rfind("[in]transpose=dir=clock", 0), 0u);
}

TEST(OrientationPlan, AHalfTurnFlipsBothWays) {
  Result<Plan> plan = make_plan(job({output("a.mkv")}), phone(180), inventory({}));
  ASSERT_TRUE(plan.is_ok());
  EXPECT_TRUE(has(plan->video_graph.text, "[in]hflip,vflip")) << plan->video_graph.text;
  EXPECT_EQ(plan->outputs[0].width, 1920);
}

TEST(OrientationPlan, UprightSourcesAndCopiesAreNotTurned) {
  Result<Plan> upright = make_plan(job({output("a.mkv")}), media(), inventory({}));
  ASSERT_TRUE(upright.is_ok());
  EXPECT_FALSE(upright->orientation.on());
  EXPECT_FALSE(has(upright->video_graph.text, "transpose"));
  Result<Plan> copy =
      make_plan(job({output("a.mp4", 0, 0, VideoCodec::kCopy)}), phone(), inventory({}));
  ASSERT_TRUE(copy.is_ok());
  EXPECT_FALSE(copy->orientation.on());
  EXPECT_TRUE(copy->outputs[0].display_matrix);  // the copied pixels keep their matrix
}

TEST(OrientationPlan, VaapiTurnsOnTheDevice) {
  SKIP_WITHOUT_FILTER("transpose_vaapi");
  Result<Plan> plan = make_plan(job({output("a.mkv", 0, 640)}, BackendKind::kVaapi), phone(),
                                inventory({intel_gpu()}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().message();
  EXPECT_TRUE(plan->decode.hw);
  // FFmpeg 5.1's VA-API filter pools are fixed: the turn's is sized for the frames held after
  // it. From libavfilter 10.4 (FFmpeg 7.1) they grow and ignore extra_hw_frames.
  const bool fixed_pools = LIBAVFILTER_VERSION_INT < AV_VERSION_INT(10, 4, 100);
  EXPECT_TRUE(has(plan->video_graph.text, fixed_pools
                                              ? "[in]transpose_vaapi=dir=clock:extra_hw_frames="
                                              : "[in]transpose_vaapi=dir=clock,"))
      << plan->video_graph.text;
  EXPECT_EQ(plan->crossings(), 0);
  EXPECT_EQ(stage(*plan, "turn upright")->device.backend, BackendKind::kVaapi);
  EXPECT_EQ(plan->outputs[0].width, 360);
}

TEST(OrientationPlan, VulkanTurnsTheUploadedFrames) {
  SKIP_WITHOUT_FILTER("transpose_vulkan");
  Result<Plan> plan =
      make_plan(job({output("a.mkv")}, BackendKind::kVulkan), phone(), inventory({lavapipe()}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().message();
  EXPECT_TRUE(has(plan->video_graph.text, "hwupload,transpose_vulkan=dir=clock"))
      << plan->video_graph.text;
  Result<Plan> half =
      make_plan(job({output("a.mkv")}, BackendKind::kVulkan), phone(180), inventory({lavapipe()}));
  ASSERT_TRUE(half.is_ok());
  EXPECT_TRUE(has(half->video_graph.text, "hwupload,flip_vulkan")) << half->video_graph.text;
}

// No transpose for CUDA frames in Debian's FFmpeg (transpose_npp needs libnpp): the source is
// decoded in software, turned, then uploaded; the decode stage says why. Deinterlacing, which
// must see the fields as rows, runs in memory before the turn.
TEST(OrientationPlan, CudaDecodesInSoftwareToTurnInMemory) {
  MediaInfo source = phone();
  source.video->field_order = AV_FIELD_TT;
  Result<Plan> plan =
      make_plan(job({output("a.mkv")}, BackendKind::kCuda), source, inventory({nvidia()}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().message();
  EXPECT_FALSE(plan->decode.hw);
  EXPECT_TRUE(has(plan->decode.note, "turned upright in memory")) << plan->decode.note;
  EXPECT_EQ(plan->video_graph.text.rfind("[in]bwdif=", 0), 0u) << plan->video_graph.text;
  EXPECT_TRUE(has(plan->video_graph.text, ",transpose=dir=clock,format=nv12,hwupload"))
      << plan->video_graph.text;
}

// The device is chosen by where the outputs' encodes fit as displayed: the portrait clip kept at
// its size is encoded 1080x1920, over an encoder maximum of 1920x1088 (which its stored
// 1920x1080 would fit). The GPU without that limit keeps the encode, so it is chosen.
TEST(OrientationPlan, TheDeviceIsChosenByTheDisplayedSize) {
  HwDevice landscape_only = intel_gpu("/dev/dri/renderD128");
  landscape_only.encode.at(AV_CODEC_ID_H264).max_width = 1920;
  landscape_only.encode.at(AV_CODEC_ID_H264).max_height = 1088;
  HwDevice larger = intel_gpu("/dev/dri/renderD129");
  larger.encode.at(AV_CODEC_ID_H264).max_width = 4096;
  larger.encode.at(AV_CODEC_ID_H264).max_height = 4096;
  Result<Plan> plan =
      make_plan(job({output("portrait.mp4")}), phone(), inventory({landscape_only, larger}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().message();
  EXPECT_EQ(plan->device.path, "/dev/dri/renderD129") << plan->backend_reason;
  EXPECT_EQ(plan->outputs[0].width, 1080);
  EXPECT_EQ(plan->outputs[0].height, 1920);
  EXPECT_EQ(plan->outputs[0].video.encoder, "h264_vaapi");
}

}  // namespace
}  // namespace tc
