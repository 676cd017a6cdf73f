// Every option a plan passes to a hardware encoder or a device filter exists in this FFmpeg
// build, for every backend x codec x rate-control mode (FFmpeg 5.1 here, 7.1 in the container
// test): an unknown option fails the open on a GPU, where no test of ours runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <set>
#include <string>
#include <tuple>

#include "pipeline/hw/backends.h"
#include "tests/unit/fixtures.h"
#include "tests/unit/graph_parse.h"
#include "tests/unit/option_truth.h"

namespace tc {

// Readable parameters in test listings (ctest shows GetParam()).
void PrintTo(BackendKind kind, std::ostream* out) {
  *out << name_of(kind);
}
void PrintTo(VideoCodec codec, std::ostream* out) {
  *out << name_of(codec);
}
void PrintTo(RateControl mode, std::ostream* out) {
  *out << name_of(mode);
}

namespace {

using testing::check_option_truth;
using testing::inventory;
using testing::job;
using testing::media;
using testing::output;

// The graph as this libavfilter reads it (graph_parse.h): every filter, option and value
// accepted, its one input "[in]" and its open outputs the plan's sinks.
void expect_libavfilter_parses(const FilterGraphPlan& graph) {
  if (graph.empty()) return;
  testing::ParsedGraph parsed = testing::parse_graph(graph.text);
  EXPECT_EQ(parsed.refusal, "") << graph.text;
  EXPECT_EQ(parsed.open_inputs, std::set<std::string>{"in"}) << graph.text;
  EXPECT_EQ(parsed.open_outputs, testing::sink_labels(graph)) << graph.text;
  EXPECT_GT(parsed.filters, 0u);
}

// A device of the backend that decodes, scales and encodes every codec we plan for.
HwDevice capable_device(BackendKind backend) {
  HwDevice device = testing::intel_gpu();
  device.backend = backend;
  bool intel = backend == BackendKind::kVaapi || backend == BackendKind::kQsv;
  device.path = intel ? "/dev/dri/renderD128" : "0";
  for (VideoCodec codec :
       {VideoCodec::kH264, VideoCodec::kHevc, VideoCodec::kAv1, VideoCodec::kVp9})
    device.encode[codec_id(codec)] = {true, true};
  return device;
}

OutputSpec output_for(VideoCodec codec, RateControl rate_control) {
  OutputSpec spec =
      output(codec == VideoCodec::kH264 || codec == VideoCodec::kHevc ? "o.mp4" : "o.mkv", 1280,
             720, codec);
  spec.rate_control = rate_control;
  if (rate_control == RateControl::kCbr || rate_control == RateControl::kVbr)
    spec.bitrate = 3'000'000;
  if (rate_control == RateControl::kQuality) spec.quality = 30;
  return spec;
}

using Case = std::tuple<BackendKind, VideoCodec, RateControl>;

class OptionTruthTest : public ::testing::TestWithParam<Case> {};

TEST_P(OptionTruthTest, EveryPlannedOptionExistsInThisBuild) {
  auto [backend, codec, rate_control] = GetParam();
  std::string hw_encoder(backend_desc(backend).encoder_for(codec));
  if (!hw_encoder.empty() && !avcodec_find_encoder_by_name(hw_encoder.c_str()))
    GTEST_SKIP() << hw_encoder << " is not in this FFmpeg build";
  std::vector<HwDevice> devices;
  if (backend != BackendKind::kSoftware) devices.push_back(capable_device(backend));
  Result<Plan> plan = make_plan(job({output_for(codec, rate_control)}, backend), media(),
                                inventory(std::move(devices)));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  testing::OptionTruth truth = check_option_truth(*plan);
  EXPECT_TRUE(truth.missing.empty())
      << ::testing::PrintToString(truth.missing) << " in " << plan->video_graph.text;
  if (!truth.not_built.empty())
    GTEST_SKIP() << "not in this FFmpeg build: " << ::testing::PrintToString(truth.not_built);
  expect_libavfilter_parses(plan->video_graph);
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  auto [backend, codec, rate_control] = info.param;
  return std::string(name_of(backend)) + "_" + std::string(name_of(codec)) + "_" +
         std::string(name_of(rate_control));
}

INSTANTIATE_TEST_SUITE_P(
    AllBackends, OptionTruthTest,
    ::testing::Combine(::testing::Values(BackendKind::kVaapi, BackendKind::kQsv, BackendKind::kCuda,
                                         BackendKind::kVulkan, BackendKind::kSoftware),
                       ::testing::Values(VideoCodec::kH264, VideoCodec::kHevc, VideoCodec::kAv1,
                                         VideoCodec::kVp9),
                       ::testing::Values(RateControl::kDefault, RateControl::kQuality,
                                         RateControl::kCbr, RateControl::kVbr)),
    case_name);

// The finding of issue 14: vp9_vaapi has no `qp`; constant quality goes through global_quality
// on its 0..255 scale.
TEST(OptionTruth, Vp9VaapiConstantQualityUsesGlobalQuality) {
  Result<Plan> plan =
      make_plan(job({output_for(VideoCodec::kVp9, RateControl::kQuality)}, BackendKind::kVaapi),
                media(), inventory({capable_device(BackendKind::kVaapi)}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  const Options& options = plan->outputs[0].video.options;
  EXPECT_EQ(std::count(options.begin(), options.end(),
                       std::pair<std::string, std::string>("global_quality", "150")),
            1)
      << ::testing::PrintToString(options);  // QP 30 of 51 is index 150 of 255
  for (const auto& [name, value] : options) EXPECT_NE(name, "qp");
}

// A cuda ladder for libx264 (the H200 has no NVENC): its rung at the source's size tells
// scale_cuda not to pass the decoder's frames through, an option this libavfilter must have.
TEST(OptionTruth, CudaLadderForASoftwareEncoder) {
  HwDevice no_nvenc = capable_device(BackendKind::kCuda);
  no_nvenc.encode.clear();
  Result<Plan> plan =
      make_plan(job({output("a.mp4", 1920, 1080), output("b.mp4", 1280, 720)}, BackendKind::kCuda),
                media(), inventory({no_nvenc}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_NE(plan->video_graph.text.find(":passthrough=0"), std::string::npos)
      << plan->video_graph.text;
  testing::OptionTruth truth = check_option_truth(*plan);
  EXPECT_TRUE(truth.missing.empty()) << ::testing::PrintToString(truth.missing);
  if (!truth.not_built.empty())
    GTEST_SKIP() << "not in this FFmpeg build: " << ::testing::PrintToString(truth.not_built);
}

TEST(OptionTruth, FindsAnOptionAnEncoderDoesNotHave) {
  Plan plan;
  OutputPlan out;
  out.video.encoder = "libx264";
  out.video.options = {{"crf", "23"}, {"no_such_option", "1"}};
  plan.outputs.push_back(out);
  plan.video_graph.text = "[in]hwupload=extra_hw_frames=4:bogus=1[out0]";
  testing::OptionTruth truth = check_option_truth(plan);
  EXPECT_EQ(truth.missing,
            (std::vector<std::string>{"libx264: no_such_option", "hwupload: bogus"}));
}

// A ladder on each device backend (a rung at the source's size, two scaled, one of them 10-bit
// HEVC where it encodes), read back by this libavfilter.
class GraphParseTest : public ::testing::TestWithParam<BackendKind> {};

TEST_P(GraphParseTest, ALaddersGraphIsOneThisLibavfilterReads) {
  BackendKind backend = GetParam();
  Result<Plan> plan = make_plan(job({output("a.mp4", 1920, 1080), output("b.mp4", 1280, 720),
                                     output("c.mkv", 640, 360, VideoCodec::kHevc)},
                                    backend),
                                media(), inventory({capable_device(backend)}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  ASSERT_FALSE(plan->video_graph.empty());
  EXPECT_EQ(plan->video_graph.sinks.size(), 3u) << plan->video_graph.text;
  testing::OptionTruth truth = check_option_truth(*plan);
  if (!truth.not_built.empty())
    GTEST_SKIP() << "not in this FFmpeg build: " << ::testing::PrintToString(truth.not_built);
  expect_libavfilter_parses(plan->video_graph);
}

INSTANTIATE_TEST_SUITE_P(DeviceBackends, GraphParseTest,
                         ::testing::Values(BackendKind::kVaapi, BackendKind::kCuda,
                                           BackendKind::kQsv, BackendKind::kVulkan),
                         [](const ::testing::TestParamInfo<BackendKind>& info) {
                           return std::string(name_of(info.param));
                         });

// The oracle refuses what libavfilter would: an option a filter lacks, a value that does not
// parse, a filter this build does not have, and open ends that are not the plan's.
TEST(GraphParse, RefusesWhatLibavfilterRefuses) {
  EXPECT_NE(testing::parse_graph("[in]scale_vaapi=w=640:hh=360[out0]").refusal, "");
  EXPECT_NE(testing::parse_graph("[in]format=not_a_pixel_format[out0]").refusal, "");
  EXPECT_NE(testing::parse_graph("[in]scale_nowhere=640:360[out0]").refusal, "");
  testing::ParsedGraph split = testing::parse_graph("[in]split=2[out0][out1]");
  EXPECT_EQ(split.refusal, "");
  EXPECT_EQ(split.open_outputs, (std::set<std::string>{"out0", "out1"}));
}

}  // namespace
}  // namespace tc
