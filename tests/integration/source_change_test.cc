// A source whose resolution changes mid-stream (issue 14): two clips of different sizes and
// colours joined into one MPEG-TS, transcoded to a fixed size on the software and vulkan
// (lavapipe) backends and into a CMAF package. Checked with ffprobe and ffmpeg's signalstats:
// every frame present and at the output's size, decodable, and the picture after the change is
// the second clip's, fitted with its display aspect (black bars where the aspect differs).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "service/common/exit_codes.h"
#include "tests/support/media_tools.h"
#include "tests/support/package_probe.h"

namespace tc::testing {
namespace {

constexpr int kFps = 30;
constexpr int kClipSeconds = 2;
constexpr int kClipFrames = kFps * kClipSeconds;

// The average luma of frame `index` of `path`, in the `crop` (w:h:x:y) of it.
double mean_luma(const std::string& path, int index, const std::string& crop) {
  ProcessResult run = run_process({"ffmpeg", "-hide_banner", "-loglevel", "info", "-i", path, "-vf",
                                   "select=eq(n\\," + std::to_string(index) + "),crop=" + crop +
                                       ",signalstats,metadata=print:key=lavfi.signalstats.YAVG",
                                   "-an", "-f", "null", "-"});
  std::smatch found;
  if (run.exit_code != 0 || !std::regex_search(run.err, found, std::regex(R"(YAVG=([0-9.]+))")))
    return -1;
  return std::stod(found[1]);
}

// Every distinct "WxH" of the decoded frames of `path`.
std::set<std::string> frame_sizes(const std::string& path) {
  ProcessResult run =
      run_process({"ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                   "frame=width,height", "-of", "csv=p=0:s=x", path});
  std::set<std::string> sizes;
  std::regex size(R"((\d+)x(\d+))");
  for (std::sregex_iterator it(run.out.begin(), run.out.end(), size), end; it != end; ++it)
    sizes.insert(it->str());
  return sizes;
}

// What ffmpeg says when it decodes all of `path` (empty: no errors).
std::string decode_errors(const std::string& path) {
  ProcessResult run =
      run_process({"ffmpeg", "-hide_banner", "-v", "error", "-i", path, "-f", "null", "-"});
  return run.exit_code == 0 ? run.err : "exit " + std::to_string(run.exit_code) + ": " + run.err;
}

class SourceChange : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() {
    inputs_ = new TempDir();
    const TempDir& in = *inputs_;
    make_colour_ts(in / "blue_640x360.ts", "0x3050c0", 640, 360, kFps, kClipSeconds, 0);
    make_colour_ts(in / "grey_320x240.ts", "0xc8c8c8", 320, 240, kFps, kClipSeconds, kClipSeconds);
    make_colour_ts(in / "grey_1280x720.ts", "0xc8c8c8", 1280, 720, kFps, kClipSeconds,
                   kClipSeconds);
    join_files(in / "blue_640x360.ts", in / "grey_320x240.ts", in / "to_4x3.ts");
    join_files(in / "blue_640x360.ts", in / "grey_1280x720.ts", in / "to_720p.ts");
  }
  static void TearDownTestSuite() { delete inputs_; }
  static std::string in(const std::string& name) { return *inputs_ / name; }

  // Runs the job on this test's backend with --json; skips where it has no device here.
  nlohmann::json run(std::vector<std::string> args) {
    args.insert(args.begin(), "run");
    args.insert(args.end(), {"--backend", GetParam(), "--json"});
    ProcessResult ran = transcode(args);
    if (ran.exit_code == kExitDevice) {
      skipped_ = "no " + GetParam() + " device: " + ran.err;
      return nullptr;
    }
    EXPECT_EQ(ran.exit_code, 0) << ran.err;
    return nlohmann::json::parse(ran.out, nullptr, false);
  }

  TempDir out_;
  std::string skipped_;
  static TempDir* inputs_;
};

TempDir* SourceChange::inputs_ = nullptr;

TEST_P(SourceChange, AspectChangeIsPillarboxedAtTheOutputsSize) {
  std::string output = out_ / "out.mp4";
  nlohmann::json report = run({in("to_4x3.ts"), output});
  if (!skipped_.empty()) GTEST_SKIP() << skipped_;
  std::optional<ProbeInfo> source = ffprobe(in("to_4x3.ts"));
  std::optional<ProbeInfo> probed = ffprobe(output);
  ASSERT_TRUE(source && source->video && probed && probed->video);
  EXPECT_EQ(source->video->frames, 2 * kClipFrames);
  EXPECT_EQ(probed->video->frames, source->video->frames);
  EXPECT_EQ(frame_sizes(output), std::set<std::string>{"640x360"});
  EXPECT_EQ(decode_errors(output), "");
  // Before the change: the blue clip, full frame.
  int before = kClipFrames / 2;
  double blue = mean_luma(in("blue_640x360.ts"), before, "200:200:220:80");
  ASSERT_GT(blue, 0);
  EXPECT_NEAR(mean_luma(output, before, "200:200:220:80"), blue, 3);
  // After: the grey clip as 480x360 in the middle, black bars of 80 pixels left and right.
  int after = kClipFrames + kClipFrames / 2;
  EXPECT_NEAR(mean_luma(output, after, "400:300:120:30"),
              mean_luma(in("grey_320x240.ts"), kClipFrames / 2, "200:200:60:20"), 3);
  EXPECT_LT(mean_luma(output, after, "70:360:0:0"), 20);
  EXPECT_LT(mean_luma(output, after, "70:360:570:0"), 20);
  ASSERT_TRUE(report.is_object());
  ASSERT_EQ(report["source_changes"].size(), 1u) << report.dump();
  const nlohmann::json& change = report["source_changes"][0];
  EXPECT_EQ(change["from"], "640x360 yuv420p");
  EXPECT_EQ(change["to"], "320x240 yuv420p");
  EXPECT_NEAR(change["time_s"].get<double>(), kClipSeconds, 0.1);
}

TEST_P(SourceChange, SameAspectLargerSourceFillsTheFrame) {
  std::string output = out_ / "out.mkv";
  nlohmann::json report = run({in("to_720p.ts"), output, "--size", "640x360"});
  if (!skipped_.empty()) GTEST_SKIP() << skipped_;
  std::optional<ProbeInfo> probed = ffprobe(output);
  ASSERT_TRUE(probed && probed->video);
  EXPECT_EQ(probed->video->frames, 2 * kClipFrames);
  EXPECT_EQ(frame_sizes(output), std::set<std::string>{"640x360"});
  EXPECT_EQ(decode_errors(output), "");
  // No bars: the edges are the grey clip's too.
  int after = kClipFrames + kClipFrames / 2;
  double grey = mean_luma(in("grey_1280x720.ts"), kClipFrames / 2, "200:200:540:260");
  ASSERT_GT(grey, 100);
  EXPECT_NEAR(mean_luma(output, after, "40:360:0:0"), grey, 3);
  EXPECT_NEAR(mean_luma(output, after, "640:40:0:0"), grey, 3);
  ASSERT_EQ(report["source_changes"].size(), 1u) << report.dump();
  EXPECT_EQ(report["source_changes"][0]["to"], "1280x720 yuv420p");
}

// Segments across the change still start with keyframes at the same times in every rendition.
TEST_P(SourceChange, CmafPackageStaysAlignedAcrossTheChange) {
  nlohmann::json report =
      run({in("to_4x3.ts"), "--package", "cmaf", "--package-dir", out_ / "pkg", "--segment", "1",
           "-o", "360p", "--size", "640x360", "-o", "180p", "--size", "320x180"});
  if (!skipped_.empty()) GTEST_SKIP() << skipped_;
  TempDir scratch;
  expect_aligned(out_ / "pkg", {"360p", "180p"}, 1, kFps, scratch);
  for (const char* rendition : {"360p", "180p"}) {
    std::vector<ProbedSegment> segments =
        probe_rendition(out_ / ("pkg/" + std::string(rendition)), scratch);
    EXPECT_EQ(segments.size(), size_t(2 * kClipSeconds)) << rendition;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, SourceChange, ::testing::Values("software", "vulkan"),
                         [](const auto& info) { return info.param; });

// A source whose size flips 40 times (a hostile or broken feed): every change is rebuilt, the
// report lists the first 32 (each entry is stored for the job's retention), and the job ends well.
TEST(SourceChanges, ASourceThatChangesFortyTimesListsTheFirstThirtyTwo) {
  TempDir dir;
  std::string joined;
  for (int i = 0; i <= 40; ++i) {
    std::string clip = dir / ("c" + std::to_string(i) + ".ts");
    make_colour_ts(clip, i % 2 ? "0xc8c8c8" : "0x3050c0", i % 2 ? 96 : 64, 64, 5, 1, i);
    joined += read_file(clip);
  }
  std::ofstream(dir / "flips.ts", std::ios::binary) << joined;
  ProcessResult ran = transcode({"run", dir / "flips.ts", dir / "out.mp4", "--json"});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  nlohmann::json report = nlohmann::json::parse(ran.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << ran.out;
  EXPECT_EQ(report["source_changes"].size(), 32u);
  EXPECT_EQ(ffprobe(dir / "out.mp4")->video->frames, 41 * 5);
}

}  // namespace
}  // namespace tc::testing
