// The filter names the planner reads as typed values (BackendDesc's FilterDesc, a plan's
// deinterlace and orientation filter names, the filter stage's scaler) are the filters that
// libavfilter makes of the text the plan writes: each graph is read by this FFmpeg's own parser
// (tests/unit/graph_parse.h), so a name that disagrees with its text fails here.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

extern "C" {
#include <libavfilter/avfilter.h>
}

#include "pipeline/hw/backends.h"
#include "pipeline/plan/graph_builder.h"
#include "pipeline/plan/plan.h"
#include "tests/unit/fixtures.h"
#include "tests/unit/graph_parse.h"

namespace tc {
namespace {

using testing::intel_gpu;
using testing::inventory;
using testing::job;
using testing::media;
using testing::output;
using testing::parse_graph;
using testing::ParsedGraph;
using testing::stage;

bool built(std::string_view filter) {
  return avfilter_get_by_name(std::string(filter).c_str()) != nullptr;
}

// Every single filter a backend's table entry gives.
std::vector<FilterDesc> filters_of(const BackendDesc& backend) {
  return {backend.scale, backend.tonemap,  backend.deinterlace, backend.deinterlace_auto,
          backend.pad,   backend.turns[1], backend.turns[2],    backend.turns[3]};
}

std::vector<std::string> split_names(const std::string& names) {
  std::vector<std::string> parts;
  std::stringstream in(names);
  for (std::string name; std::getline(in, name, ',');) parts.push_back(name);
  return parts;
}

// A stage's component ("bwdif (source tt)") names the filter, and the graph runs it `times`.
void expect_runs(const ParsedGraph& graph, const std::string& names, size_t times) {
  ASSERT_FALSE(names.empty());
  for (const std::string& name : split_names(names))
    EXPECT_EQ(graph.filter_names.count(name), times) << name;
}

// The graph the plan runs, as libavfilter reads it; the plan's deinterlacer and turn are in it
// once each, by the names the plan keeps.
ParsedGraph expect_deinterlace_and_turn_run(const Plan& plan) {
  ParsedGraph graph = parse_graph(plan.video_graph.text);
  EXPECT_EQ(graph.refusal, "") << plan.video_graph.text;
  expect_runs(graph, plan.deinterlace.filter_name, 1);
  expect_runs(graph, plan.orientation.filter_names, 1);
  return graph;
}

// A phone clip (turned 90 degrees clockwise for display), deinterlaced on request.
Result<Plan> rotated_interlaced_plan(BackendKind backend, std::vector<HwDevice> devices,
                                     double rotation_deg = -90) {
  MediaInfo source = media(AV_CODEC_ID_H264, 1920, 1080);
  source.video->rotation_deg = rotation_deg;
  JobSpec spec = job({output("full.mkv"), output("small.mkv", 0, 640)}, backend);
  spec.deinterlace = Deinterlace::kOn;
  return make_plan(spec, source, inventory(std::move(devices)));
}

TEST(FilterNames, EachTableFilterIsTheOneItsTextMakes) {
  int checked = 0;
  for (const BackendDesc& backend : backends()) {
    for (const FilterDesc& filter : filters_of(backend)) {
      if (filter.empty() || !built(filter.name)) continue;
      std::string text = GraphBuilder::substitute(filter.text(), 640, 360, "nv12");
      ParsedGraph graph = parse_graph("[in]" + text + "[out]");
      EXPECT_EQ(graph.refusal, "") << text;
      EXPECT_EQ(graph.filter_names, std::multiset<std::string>{std::string(filter.name)}) << text;
      ++checked;
    }
  }
  // Debian 12's FFmpeg 5.1 has all but pad_vaapi: 7 of VA-API, 3 of QSV, 3 of CUDA, 4 of
  // Vulkan, software's scale.
  EXPECT_GE(checked, 18);
}

TEST(FilterNames, SoftwareStagesNameTheFiltersOfTheGraph) {
  Result<Plan> plan = rotated_interlaced_plan(BackendKind::kSoftware, {});
  ASSERT_TRUE(plan.is_ok()) << plan.status().message();
  ParsedGraph graph = expect_deinterlace_and_turn_run(*plan);
  EXPECT_EQ(plan->deinterlace.filter_name, "bwdif");
  EXPECT_EQ(plan->orientation.filter_names, "transpose");
  EXPECT_EQ(stage(*plan, "deinterlace")->component.rfind("bwdif (", 0), 0u);
  EXPECT_EQ(stage(*plan, "turn upright")->component.rfind("transpose (", 0), 0u);
  EXPECT_EQ(stage(*plan, "filter")->component, "scale x1");
  expect_runs(graph, "scale", 1);
}

TEST(FilterNames, AHalfTurnNamesBothFlips) {
  Result<Plan> plan = rotated_interlaced_plan(BackendKind::kSoftware, {}, 180);
  ASSERT_TRUE(plan.is_ok()) << plan.status().message();
  expect_deinterlace_and_turn_run(*plan);
  EXPECT_EQ(plan->orientation.filter_names, "hflip,vflip");
  EXPECT_EQ(stage(*plan, "turn upright")->component.rfind("hflip,vflip (", 0), 0u);
}

TEST(FilterNames, VaapiStagesNameTheDeviceFiltersOfTheGraph) {
  for (const char* filter : {"deinterlace_vaapi", "transpose_vaapi", "scale_vaapi"})
    if (!built(filter)) GTEST_SKIP() << filter << " is not in this FFmpeg build";
  Result<Plan> plan = rotated_interlaced_plan(BackendKind::kVaapi, {intel_gpu()});
  ASSERT_TRUE(plan.is_ok()) << plan.status().message();
  ParsedGraph graph = expect_deinterlace_and_turn_run(*plan);
  EXPECT_EQ(plan->deinterlace.filter_name, "deinterlace_vaapi");
  EXPECT_EQ(plan->orientation.filter_names, "transpose_vaapi");
  EXPECT_EQ(stage(*plan, "filter")->component, "scale_vaapi x2");
  expect_runs(graph, "scale_vaapi", 2);
}

}  // namespace
}  // namespace tc
