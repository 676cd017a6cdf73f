// How a plan uses the machine's cores (plan/cores.h): the software decoder's and the video
// graph's threads, and the GOP-parallel encoders it sets with them.
#include "pipeline/plan/cores.h"

#include <gtest/gtest.h>

#include <string>

#include "pipeline/exec/stages.h"
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

Plan planned(const JobSpec& spec, const HwInventory& devices, unsigned cores,
             bool branch_threads = true) {
  Plan plan = testing::value_or_stop(make_plan(spec, media(), devices));
  plan_for_cores(plan, {0, cores}, branch_threads);
  return plan;
}

JobSpec ladder(BackendKind backend = BackendKind::kAuto) {
  return job({output("a.mp4"), output("b.mp4", 1280, 720), output("c.mp4", 640, 360)}, backend);
}

TEST(DecoderThreads, AQuarterOfTheCoresAtLeastOneAtMostSixteen) {
  EXPECT_EQ(software_decoder_threads(1), 1);
  EXPECT_EQ(software_decoder_threads(2), 1);
  EXPECT_EQ(software_decoder_threads(7), 1);
  EXPECT_EQ(software_decoder_threads(8), 2);
  EXPECT_EQ(software_decoder_threads(16), 4);
  EXPECT_EQ(software_decoder_threads(64), 16);
  EXPECT_EQ(software_decoder_threads(256), 16);
}

// The plan a job runs with, and what the dry run and the report show of it.
TEST(DecoderThreads, ASoftwareDecoderGetsThemAndItsStageSaysSo) {
  Plan two = planned(ladder(), inventory({}), 2);
  EXPECT_EQ(two.decode.threads, 1);
  EXPECT_EQ(stage(two, "decode")->component, "h264 (software, 1 thread)");
  Plan sixteen = planned(ladder(), inventory({}), 16);
  EXPECT_EQ(sixteen.decode.threads, 4);
  EXPECT_EQ(stage(sixteen, "decode")->component, "h264 (software, 4 threads)");
  // The same call sets the GOP-parallel encoders from the same cores.
  EXPECT_EQ(sixteen.outputs[0].video.parallel_encoders, 2);
}

// A serial run filters and encodes between its calls to the decoder: libavcodec's auto
// (cores + 1) keeps the decoder busy meanwhile.
TEST(DecoderThreads, ASerialRunKeepsLibavcodecsAuto) {
  Plan plan = planned(ladder(), inventory({}), 2, false);
  EXPECT_EQ(plan.decode.threads, 0);
  EXPECT_EQ(stage(plan, "decode")->component, "h264 (software)");
  EXPECT_FALSE(runs_stage_threads(plan, false));
  EXPECT_TRUE(runs_stage_threads(plan, true));
}

TEST(DecoderThreads, VulkanJobsRunOnOneThreadAndKeepTheAuto) {
  Result<Plan> plan = make_plan(ladder(BackendKind::kVulkan), media(), inventory({lavapipe()}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  ASSERT_FALSE(plan->decode.hw);  // FFmpeg 5.1 has no Vulkan decoder: decoded, then uploaded
  EXPECT_FALSE(runs_stage_threads(*plan, true));
  plan_for_cores(*plan, {0, 16}, true);
  EXPECT_EQ(plan->decode.threads, 0);
}

TEST(DecoderThreads, ADeviceDecoderKeepsOne) {
  Plan plan = planned(ladder(BackendKind::kVaapi), inventory({intel_gpu()}), 16);
  ASSERT_TRUE(plan.decode.hw);
  EXPECT_EQ(plan.decode.threads, 1);
  EXPECT_EQ(stage(plan, "decode")->component.find("thread"), std::string::npos)
      << stage(plan, "decode")->component;
}

TEST(DecoderThreads, NoneWhereTheVideoIsCopied) {
  Plan plan = planned(job({output("a.mp4", 0, 0, VideoCodec::kCopy)}), inventory({}), 16);
  EXPECT_FALSE(plan.decode.needed);
  EXPECT_EQ(plan.decode.threads, 0);
  EXPECT_EQ(stage(plan, "decode"), nullptr);
}

TEST(GraphThreads, TheCoresAtMostFour) {
  EXPECT_EQ(video_graph_threads(1), 1);
  EXPECT_EQ(video_graph_threads(2), 2);
  EXPECT_EQ(video_graph_threads(4), 4);
  EXPECT_EQ(video_graph_threads(16), 4);
}

TEST(GraphThreads, EveryVideoGraphGetsThemAndTheFilterStageSaysSo) {
  Plan plan = planned(ladder(), inventory({}), 16);
  EXPECT_EQ(plan.video_graph.threads, 4);
  // A source that changes mid-stream is filtered with the same threads.
  EXPECT_EQ(plan.fallback_video_graph.threads, 4);
  EXPECT_EQ(plan.refit_video_graph.threads, 4);
  EXPECT_EQ(plan.refit_fallback_video_graph.threads, 4);
  EXPECT_EQ(stage(plan, "filter")->component, "scale x2 (4 threads)");
  EXPECT_EQ(planned(ladder(), inventory({}), 2).video_graph.threads, 2);
}

// What the executor makes of the plan: libavfilter starts the graph's slice threads with its
// first filter, from the graph's nb_threads then.
TEST(GraphThreads, TheGraphRunsWithThem) {
  Plan plan = planned(ladder(), inventory({}), 16);
  av::FramePtr frame = av::make_frame();
  frame->format = AV_PIX_FMT_YUV420P;
  frame->width = 1920;
  frame->height = 1080;
  Result<FilterGraph> graph =
      FilterGraph::create(plan.video_graph, "in", video_source(*frame, {1, 30}, {30, 1}), nullptr);
  ASSERT_TRUE(graph.is_ok()) << graph.status().to_string();
  EXPECT_EQ(graph->sink(0)->graph->nb_threads, 4);
}

TEST(GraphThreads, ASerialRunKeepsLibavfiltersAuto) {
  Plan plan = planned(ladder(), inventory({}), 16, false);
  EXPECT_EQ(plan.video_graph.threads, 0);
  EXPECT_EQ(stage(plan, "filter")->component, "scale x2");
}

TEST(GraphThreads, ADevicesScalersAreNotSaidToHaveThreads) {
  Plan plan = planned(ladder(BackendKind::kVaapi), inventory({intel_gpu()}), 16);
  EXPECT_EQ(stage(plan, "filter")->component.find("thread"), std::string::npos)
      << stage(plan, "filter")->component;
}

}  // namespace
}  // namespace tc
