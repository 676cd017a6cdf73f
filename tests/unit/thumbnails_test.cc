// Thumbnails without media or hardware: their plans on every backend (a branch of the one
// decode; on a device only the chosen tiles are downloaded), the spec's checks, the command
// line, and the JSON and report forms.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "pipeline/exec/report.h"
#include "pipeline/plan/plan.h"
#include "pipeline/spec/thumbnail_spec.h"
#include "service/cli/job_args.h"
#include "tests/unit/fixtures.h"

namespace tc {
namespace {

using testing::intel_gpu;
using testing::inventory;
using testing::job;
using testing::media;
using testing::output;
using testing::stage;

JobSpec with_thumbnails(JobSpec spec, double interval_s = 2) {
  spec.thumbnails.on = true;
  spec.thumbnails.interval_s = interval_s;
  return spec;
}

std::vector<OutputSpec> ladder() {
  return {output("a.mp4", 1280, 720), output("b.mp4", 640, 360)};
}

// A GPU of `backend` that decodes and encodes H.264.
HwDevice gpu_of(BackendKind backend) {
  HwDevice device = intel_gpu();
  device.backend = backend;
  if (backend == BackendKind::kCuda) device.path = "0";
  return device;
}

constexpr auto count = testing::occurrences;

// The graph's chain that ends at `sink` ("[thumbs]").
std::string chain_ending(const std::string& graph, const std::string& sink) {
  std::istringstream chains(graph);
  for (std::string chain; std::getline(chains, chain, ';');)
    if (chain.size() >= sink.size() && chain.ends_with(sink)) return chain;
  return "";
}

TEST(ThumbnailPlan, SoftwareBranchChoosesByTimeThenScalesToTheTile) {
  Result<Plan> plan =
      make_plan(with_thumbnails(job({output("out.mp4", 1280, 720)})), media(), inventory({}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  const ThumbnailPlan& thumbnails = plan->thumbnails;
  ASSERT_TRUE(thumbnails.on);
  EXPECT_EQ(thumbnails.width, 160);  // the default width
  EXPECT_EQ(thumbnails.height, 90);  // by the 16:9 source
  EXPECT_EQ(thumbnails.dir, ".");    // beside out.mp4
  EXPECT_FALSE(thumbnails.download);
  std::string chain = chain_ending(plan->video_graph.text, "[thumbs]");
  ASSERT_FALSE(chain.empty()) << plan->video_graph.text;
  size_t select =
      chain.find("select='isnan(prev_selected_t)+gte(floor(t/2)-floor(prev_selected_t/2),1)'");
  size_t scale = chain.find("scale=160:90");
  ASSERT_NE(select, std::string::npos) << chain;
  ASSERT_NE(scale, std::string::npos) << chain;
  EXPECT_LT(select, scale) << "frames not taken must not cost a scale: " << chain;
  EXPECT_TRUE(chain.ends_with("format=yuvj420p[thumbs]")) << chain;
  ASSERT_EQ(plan->video_graph.sinks.size(), 2u);
  EXPECT_TRUE(plan->video_graph.sinks[1].thumbnails);
  EXPECT_EQ(plan->video_graph.sink_label(0), "out0");
  EXPECT_EQ(plan->crossings(), 0);
  ASSERT_NE(stage(*plan, "encode thumbnails"), nullptr);
  EXPECT_EQ(stage(*plan, "download thumbnails"), nullptr);
}

TEST(ThumbnailPlan, CopiedOutputsStillDecodeForTheTiles) {
  Result<Plan> plan = make_plan(with_thumbnails(job({output("out.mkv", 0, 0, VideoCodec::kCopy)})),
                                media(), inventory({}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_TRUE(plan->decode.needed);
  EXPECT_NE(plan->video_graph.text.find("[thumbs]"), std::string::npos);
}

// On a device the tiles are chosen and scaled there, and only they come down: the plan has the
// transfers it has without thumbnails, plus one download, on the thumbnail branch alone.
TEST(ThumbnailPlan, DevicesDownloadOnlyTheChosenTiles) {
  for (BackendKind backend : {BackendKind::kVaapi, BackendKind::kCuda}) {
    HwInventory devices = inventory({gpu_of(backend)});
    Result<Plan> without = make_plan(job(ladder(), backend), media(), devices);
    Result<Plan> with = make_plan(with_thumbnails(job(ladder(), backend)), media(), devices);
    ASSERT_TRUE(without.is_ok()) << without.status().to_string();
    ASSERT_TRUE(with.is_ok()) << with.status().to_string();
    const std::string& graph = with->video_graph.text;
    EXPECT_EQ(with->video_graph.uploads, without->video_graph.uploads) << graph;
    EXPECT_EQ(with->video_graph.downloads, without->video_graph.downloads + 1) << graph;
    EXPECT_EQ(count(graph, "hwdownload"), count(without->video_graph.text, "hwdownload") + 1);
    std::string chain = chain_ending(graph, "[thumbs]");
    std::string scaler = backend == BackendKind::kVaapi ? "scale_vaapi" : "scale_cuda";
    size_t select = chain.find("select=");
    size_t scale = chain.find(scaler);
    size_t download = chain.find("hwdownload");
    ASSERT_NE(select, std::string::npos) << graph;
    ASSERT_NE(scale, std::string::npos) << graph;
    ASSERT_NE(download, std::string::npos) << graph;
    EXPECT_LT(select, scale) << chain;
    EXPECT_LT(scale, download) << "tiles are scaled on the device: " << chain;
    // The outputs' own chains are what they were.
    for (const char* sink : {"[out0]", "[out1]"})
      EXPECT_EQ(count(chain_ending(graph, sink), "hwdownload"),
                count(chain_ending(without->video_graph.text, sink), "hwdownload"))
          << sink;
    EXPECT_TRUE(with->thumbnails.download);
    EXPECT_EQ(with->thumbnails.scale_device.backend, backend);
    EXPECT_EQ(with->decode.hw, without->decode.hw);
    if (with->decode.hw) {  // the decoder's pool holds a frame for the thumbnail branch too
      EXPECT_EQ(with->decode.extra_hw_frames, without->decode.extra_hw_frames + 1);
    }
    std::unique_ptr<Stage> download_stage = stage(*with, "download thumbnails");
    ASSERT_NE(download_stage, nullptr) << name_of(backend);
    EXPECT_EQ(download_stage->device.backend, backend);
    EXPECT_NE(describe(*with).find("only the chosen frames downloaded"), std::string::npos);
  }
}

TEST(ThumbnailPlan, InsideThePackage) {
  JobSpec spec = with_thumbnails(job({output("720p", 1280, 720)}));
  spec.package.kind = PackageKind::kHls;
  spec.package.dir = "/out/show";
  normalize(spec);
  Result<Plan> plan = make_plan(spec, media(), inventory({}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_TRUE(plan->thumbnails.in_package);
  EXPECT_EQ(plan->thumbnails.dir, "/out/show");
}

TEST(ThumbnailPlan, ATileLargerThanTheSourceIsRefusedNamingIt) {
  for (auto [width, height] : {std::pair{3840, 0}, std::pair{0, 1440}, std::pair{160, 0}}) {
    JobSpec spec = with_thumbnails(job({output("out.mp4")}));
    spec.thumbnails.width = width;
    spec.thumbnails.height = height;
    Result<Plan> plan = make_plan(
        spec, media(AV_CODEC_ID_H264, width == 160 ? 128 : 1920, width == 160 ? 72 : 1080),
        inventory({}));
    ASSERT_FALSE(plan.is_ok()) << width << "x" << height;
    EXPECT_EQ(plan.status().code(), Code::kInvalidArgument);
    EXPECT_EQ(plan.status().field(), "thumbnails.width") << plan.status().to_string();
  }
}

TEST(ThumbnailPlan, ASheetLargerThanAnEncoderSideIsRefused) {
  JobSpec spec = with_thumbnails(job({output("out.mp4")}));
  spec.thumbnails.width = 1920;
  spec.thumbnails.columns = 10;
  Result<Plan> plan = make_plan(spec, media(), inventory({}));
  ASSERT_FALSE(plan.is_ok());
  EXPECT_EQ(plan.status().field(), "thumbnails.columns");
}

TEST(ThumbnailSpec, BadOptionsNameTheField) {
  struct Bad {
    void (*change)(JobSpec&);
    std::string field;
  };
  for (const Bad& bad : std::vector<Bad>{
           {[](JobSpec& s) { s.thumbnails.interval_s = 0; }, "thumbnails.interval_s"},
           {[](JobSpec& s) { s.thumbnails.interval_s = -2; }, "thumbnails.interval_s"},
           {[](JobSpec& s) { s.thumbnails.interval_s = std::nan(""); }, "thumbnails.interval_s"},
           {[](JobSpec& s) { s.thumbnails.width = 161; }, "thumbnails.width"},
           {[](JobSpec& s) { s.thumbnails.width = -160; }, "thumbnails.width"},
           {[](JobSpec& s) { s.thumbnails.width = s.thumbnails.height = 0; }, "thumbnails.width"},
           {[](JobSpec& s) { s.thumbnails.columns = 0; }, "thumbnails.columns"},
           {[](JobSpec& s) { s.thumbnails.rows = kMaxSheetTiles + 1; }, "thumbnails.rows"},
           {[](JobSpec& s) {
              s.package.kind = PackageKind::kHls;
              s.package.dir = "/out/show";
              s.outputs[0].path = "sheet_1.jpg";
            },
            "outputs[0].path"},
       }) {
    JobSpec spec = with_thumbnails(job({output("out.mp4")}));
    ASSERT_TRUE(validate(spec).is_ok());
    bad.change(spec);
    normalize(spec);  // a package's renditions become mp4
    Status status = validate(spec);
    EXPECT_EQ(status.code(), Code::kInvalidArgument) << bad.field;
    EXPECT_EQ(status.field(), bad.field) << status.to_string();
  }
}

TEST(ThumbnailSpec, JsonRoundTripAndAnEmptyObjectTakesTheDefaults) {
  JobSpec spec = with_thumbnails(job({output("out.mp4")}), 2.5);
  spec.thumbnails.width = 0;
  spec.thumbnails.height = 120;
  spec.thumbnails.columns = 4;
  spec.thumbnails.rows = 3;
  Result<JobSpec> back = job_spec_from_json(job_spec_to_json(spec));
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  EXPECT_EQ(back->thumbnails, spec.thumbnails);
  Result<JobSpec> defaults = job_spec_from_json(
      R"({"input": "in.mp4", "outputs": [{"path": "out.mp4"}], "thumbnails": {}})");
  ASSERT_TRUE(defaults.is_ok()) << defaults.status().to_string();
  EXPECT_EQ(defaults->thumbnails, (ThumbnailSpec{.on = true}));
  Result<JobSpec> none =
      job_spec_from_json(R"({"input": "in.mp4", "outputs": [{"path": "out.mp4"}]})");
  ASSERT_TRUE(none.is_ok());
  EXPECT_FALSE(none->thumbnails.on);
}

TEST(ThumbnailArgs, IntervalSizeAndGrid) {
  Result<cli::JobArgs> args = cli::parse_job_args(
      {"in.mp4", "out.mp4", "--thumbnails", "2.5:320x0", "--thumbnail-grid", "4x3"});
  ASSERT_TRUE(args.is_ok()) << args.status().to_string();
  EXPECT_EQ(args->spec.thumbnails, (ThumbnailSpec{true, 2.5, 320, 0, 4, 3}));
  args =
      cli::parse_job_args({"in.mp4", "out.mp4", "--thumbnails", "10", "--thumbnail-size", "0x90"});
  ASSERT_TRUE(args.is_ok()) << args.status().to_string();
  EXPECT_EQ(args->spec.thumbnails, (ThumbnailSpec{true, 10, 0, 90, 5, 5}));
}

TEST(ThumbnailArgs, BadOptionsNameTheOption) {
  for (auto [args, flag] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--thumbnails", "0"}, "--thumbnails"},
           {{"--thumbnails", "-1"}, "--thumbnails"},
           {{"--thumbnails", "soon"}, "--thumbnails"},
           {{"--thumbnails", "2:big"}, "--thumbnails"},
           {{"--thumbnails", "2", "--thumbnail-size", "161x0"}, "--thumbnail-size"},
           {{"--thumbnails", "2", "--thumbnail-grid", "0x5"}, "--thumbnail-grid"},
           {{"--thumbnail-size", "160x0"}, "--thumbnail-size"},
       }) {
    std::vector<std::string> line{"in.mp4", "out.mp4"};
    line.insert(line.end(), args.begin(), args.end());
    Result<cli::JobArgs> parsed = cli::parse_job_args(line);
    ASSERT_FALSE(parsed.is_ok()) << flag;
    EXPECT_EQ(parsed.status().code(), Code::kInvalidArgument);
    EXPECT_EQ(parsed.status().message().rfind(flag, 0), 0u) << parsed.status().message();
  }
}

TEST(ThumbnailReportJson, RoundTripsAndIsAbsentWithoutThumbnails) {
  JobReport report;
  report.thumbnails =
      ThumbnailReport{"/out/thumbnails.vtt", {"sheet_1.jpg", "sheet_2.jpg"}, 30, 2, 160, 90, 5, 5};
  nlohmann::json json = report;
  JobReport back;
  ASSERT_TRUE(from_json(json, back).is_ok());
  EXPECT_EQ(back.thumbnails, report.thumbnails);
  EXPECT_FALSE(nlohmann::json(JobReport{}).contains("thumbnails"));
}

}  // namespace
}  // namespace tc
