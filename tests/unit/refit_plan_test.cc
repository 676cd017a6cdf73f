// The refit graph (refit_plan.h): what the executor builds when the source changes size or format
// mid-stream. Every output keeps its planned size on every backend, the new frames fitted
// keeping their display aspect and padded black; the software graph is also built and run here
// for sources of several shapes.
#include "pipeline/plan/refit_plan.h"

#include <gtest/gtest.h>

#include <cstring>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
}

#include "pipeline/exec/stages.h"
#include "tests/unit/fixtures.h"

namespace tc {
namespace {

using testing::intel_gpu;
using testing::inventory;
using testing::job;
using testing::media;
using testing::output;
constexpr auto count = testing::occurrences;

std::vector<OutputSpec> ladder() {
  return {output("a.mp4"), output("b.mp4", 1280, 720), output("c.mp4", 640, 360)};
}

std::vector<std::string> labels(const FilterGraphPlan& graph) {
  std::vector<std::string> labels;
  for (const GraphSink& sink : graph.sinks)
    labels.push_back(sink.label + "->" + std::to_string(sink.output));
  return labels;
}

HwDevice device_of(BackendKind backend, bool encodes) {
  HwDevice device;
  device.backend = backend;
  device.path = "0";
  device.driver = backend == BackendKind::kCuda ? "nvidia" : "vulkan";
  if (backend == BackendKind::kCuda) device.decode = {{AV_CODEC_ID_H264, 8}};
  if (encodes) device.encode = {{AV_CODEC_ID_H264, {true, false}}};
  device.can_scale = true;
  return device;
}

TEST(RefitPlan, SoftwareEveryOutputFitsAndPadsToItsPlannedSize) {
  Result<Plan> plan = make_plan(job(ladder()), media(), inventory({}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  const FilterGraphPlan& refit = plan->refit_video_graph;
  // The executor maps sinks to outputs by the planned graph's order: the refit graph's match.
  EXPECT_EQ(labels(refit), labels(plan->video_graph));
  // The first output has the source's size: no scaler in the planned graph, one in the refit.
  EXPECT_EQ(count(plan->video_graph.text, "scale="), 2) << plan->video_graph.text;
  EXPECT_EQ(refit.scalers, 3) << refit.text;
  for (const char* pad : {"pad=1920:1080:-1:-1", "pad=1280:720:-1:-1", "pad=640:360:-1:-1"})
    EXPECT_EQ(count(refit.text, pad), 1) << pad << " in " << refit.text;
  EXPECT_EQ(count(refit.text, "scale='min(640,trunc(360*dar/2+0.5)*2)'"), 1) << refit.text;
  EXPECT_EQ(refit.uploads + refit.downloads, 0);
  EXPECT_NE(describe(*plan).find("padded black (no more transfers)"), std::string::npos)
      << describe(*plan);
}

TEST(RefitPlan, VaapiKeepsItsPoolSizesAndPadsWhereThisFfmpegCan) {
  Result<Plan> plan =
      make_plan(job({output("a.mp4", 1280, 720), output("b.mp4", 640, 360)}, BackendKind::kVaapi),
                media(), inventory({intel_gpu()}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  ASSERT_TRUE(plan->decode.hw);
  const FilterGraphPlan& refit = plan->refit_video_graph;
  EXPECT_EQ(labels(refit), labels(plan->video_graph));
  // The scalers' fixed pools (5.1) are sized as in the planned graph: the same frames are held
  // downstream of them. The decoder's new pool (get_format again) keeps its extra_hw_frames.
  const BackendDesc& vaapi = backend_desc(BackendKind::kVaapi);
  // What the encoder holds and what waits for its output's thread (plan.h).
  std::string held = std::to_string(vaapi.encoder_held_frames(-1) + kBranchQueueFrames);
  bool fixed = vaapi.fixed_pools;
  EXPECT_EQ(count(plan->video_graph.text, "extra_hw_frames=" + held), fixed ? 2 : 0);
  EXPECT_EQ(count(refit.text, ":extra_hw_frames=" + held), fixed ? 2 : 0) << refit.text;
  EXPECT_EQ(count(refit.text, "scale_vaapi=w='min(1280,trunc(720*dar/2+0.5)*2)'"), 1) << refit.text;
  if (avfilter_get_by_name("pad_vaapi")) {  // FFmpeg 6.1+: the letterbox stays on the GPU
    EXPECT_EQ(count(refit.text, "pad_vaapi=w=640:h=360"), 1) << refit.text;
    EXPECT_EQ(refit.uploads + refit.downloads, 0) << refit.text;
  } else {  // 5.1: down, padded, up again for h264_vaapi; hwupload's pool fixed where scalers' are
    EXPECT_EQ(count(refit.text, "hwdownload,format=nv12,pad=640:360:-1:-1,format=nv12,hwupload"), 1)
        << refit.text;
    EXPECT_EQ(count(refit.text, "hwupload=extra_hw_frames=" + held), fixed ? 2 : 0) << refit.text;
    EXPECT_EQ(refit.downloads, 2);
    EXPECT_NE(describe(*plan).find("4 more transfer filter(s): no pad on the device"),
              std::string::npos);
  }
  // Software-decoded frames after a change (the hwaccel refuses the new size): uploaded first.
  EXPECT_EQ(count(plan->refit_fallback_video_graph.text, "[in]format=nv12,hwupload"), 1)
      << plan->refit_fallback_video_graph.text;
}

TEST(RefitPlan, CudaFitsInOneStepAndPadsInMemory) {
  Result<Plan> plan = make_plan(job({output("a.mp4", 640, 360)}, BackendKind::kCuda), media(),
                                inventory({device_of(BackendKind::kCuda, true)}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  const FilterGraphPlan& refit = plan->refit_video_graph;
  // The planned graph cascades 1080p -> 360p in 2:1 steps; the refit's source size is unknown.
  EXPECT_EQ(count(plan->video_graph.text, "scale_cuda"), 2) << plan->video_graph.text;
  EXPECT_EQ(count(refit.text, "scale_cuda=w='min(640,trunc(360*dar/2+0.5)*2)'"), 1) << refit.text;
  EXPECT_EQ(count(refit.text, "scale_cuda"), 1) << refit.text;
  EXPECT_EQ(count(refit.text, "hwdownload,format=nv12,pad=640:360:-1:-1"), 1) << refit.text;
  bool nvenc = plan->outputs[0].video.hw_frames;  // where this FFmpeg has h264_nvenc
  EXPECT_EQ(count(refit.text, "hwupload"), nvenc ? 1 : (plan->decode.hw ? 0 : 1)) << refit.text;
}

TEST(RefitPlan, VulkanFitsOnTheDeviceAndPadsAfterTheDownload) {
  Result<Plan> plan = make_plan(job({output("a.mp4", 640, 360)}, BackendKind::kVulkan), media(),
                                inventory({device_of(BackendKind::kVulkan, false)}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_EQ(plan->refit_video_graph.text,
            "[in]format=yuv420p,hwupload,scale_vulkan=w='min(640,trunc(360*dar/2+0.5)*2)':"
            "h='min(360,trunc(640/dar/2+0.5)*2)',hwdownload,format=yuv420p,"
            "pad=640:360:-1:-1[out0]");
}

// A frame of `width`x`height` (sample aspect `sar`), white.
av::FramePtr white_frame(int width, int height, AVRational sar) {
  av::FramePtr frame = av::make_frame();
  frame->width = width;
  frame->height = height;
  frame->format = AV_PIX_FMT_YUV420P;
  frame->sample_aspect_ratio = sar;
  frame->pts = 0;
  EXPECT_EQ(av_frame_get_buffer(frame.get(), 0), 0);
  for (int plane = 0; plane < 3; ++plane)
    for (int y = 0; y < (plane ? height / 2 : height); ++y)
      std::memset(frame->data[plane] + y * frame->linesize[plane], plane ? 128 : 235,
                  plane ? width / 2 : width);
  return frame;
}

struct Fitted {
  int width = 0;  // the frame's
  int height = 0;
  int picture_width = 0;  // not black, along the middle row and column
  int picture_height = 0;
};

Fitted run_refit(const Plan& plan, int width, int height, AVRational sar) {
  av::FramePtr in = white_frame(width, height, sar);
  Result<FilterGraph> graph = FilterGraph::create(plan.refit_video_graph, "in",
                                                  video_source(*in, {1, 25}, {25, 1}), nullptr);
  EXPECT_TRUE(graph.is_ok()) << graph.status().to_string();
  if (!graph.is_ok()) return {};
  EXPECT_TRUE(graph->push(in.get()).is_ok());
  EXPECT_TRUE(graph->push(nullptr).is_ok());
  av::FramePtr out = av::make_frame();
  EXPECT_EQ(graph->pull(0, out.get()), 0);
  Fitted fitted{out->width, out->height};
  for (int x = 0; x < out->width; ++x)
    fitted.picture_width += out->data[0][out->height / 2 * out->linesize[0] + x] > 128;
  for (int y = 0; y < out->height; ++y)
    fitted.picture_height += out->data[0][y * out->linesize[0] + out->width / 2] > 128;
  return fitted;
}

TEST(RefitGraph, AnySourceComesOutAtThePlannedSizeWithItsDisplayAspect) {
  Result<Plan> plan = make_plan(job({output("a.mp4", 640, 360)}), media(), inventory({}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  struct Case {
    int width, height;
    AVRational sar;
    int picture_width, picture_height;
  };
  for (const Case& c : {Case{320, 240, {1, 1}, 480, 360},      // 4:3: pillarbox
                        Case{1280, 720, {1, 1}, 640, 360},     // same aspect: no bars
                        Case{100, 400, {1, 1}, 90, 360},       // portrait
                        Case{720, 576, {16, 15}, 480, 360},    // anamorphic 4:3 (PAL)
                        Case{1920, 800, {1, 1}, 640, 266}}) {  // 2.4:1: letterbox
    Fitted fitted = run_refit(*plan, c.width, c.height, c.sar);
    SCOPED_TRACE(std::to_string(c.width) + "x" + std::to_string(c.height));
    EXPECT_EQ(fitted.width, 640);
    EXPECT_EQ(fitted.height, 360);
    EXPECT_NEAR(fitted.picture_width, c.picture_width, 2);
    EXPECT_NEAR(fitted.picture_height, c.picture_height, 2);
  }
}

}  // namespace
}  // namespace tc
