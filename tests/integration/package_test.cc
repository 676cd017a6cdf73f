// `transcode run --package`: HLS/DASH/CMAF packages checked with ffprobe (never with our own
// report): the manifests and every rendition read, segments start with keyframes at the same
// times in every rendition, durations hold the target, manifest figures match the segments.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "service/common/exit_codes.h"
#include "tests/support/media_tools.h"
#include "tests/support/package_probe.h"

namespace tc::testing {
namespace {

constexpr int kFps = 30;
constexpr double kSegment = 2;

std::string ffprobe_json(const std::vector<std::string>& args) {
  std::vector<std::string> argv{"ffprobe", "-v", "error", "-of", "json"};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessResult run = run_process(argv);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return run.out;
}

// A manifest attribute: `KEY=value` or `KEY="value"` on the line naming `uri` (the line before).
std::map<std::string, std::string> stream_inf_for(const std::string& master,
                                                  const std::string& uri) {
  std::istringstream lines(master);
  std::string previous;
  for (std::string line; std::getline(lines, line); previous = line) {
    if (line != uri) continue;
    std::map<std::string, std::string> attributes;
    std::regex attribute(R"(([A-Z-]+)=("[^"]*"|[^,]*))");
    for (std::sregex_iterator it(previous.begin(), previous.end(), attribute), end; it != end;
         ++it) {
      std::string value = (*it)[2];
      if (!value.empty() && value[0] == '"') value = value.substr(1, value.size() - 2);
      attributes[(*it)[1]] = value;
    }
    return attributes;
  }
  return {};
}

int64_t peak_bitrate(const std::vector<ProbedSegment>& segments) {
  double peak = 0;
  for (size_t i = 0; i < segments.size(); ++i) {
    double seconds = i + 1 < segments.size() ? segments[i + 1].first_pts - segments[i].first_pts
                                             : segments[i].end - segments[i].first_pts;
    peak = std::max(peak, segments[i].bytes * 8 / seconds);
  }
  return int64_t(peak);
}

// RFC 6381 for what ffprobe says of an H.264 stream: avc1.PP..LL (constraint flags not shown).
std::string avc1_prefix(const std::string& profile) {
  return profile == "High" ? "avc1.64" : profile == "Main" ? "avc1.4d" : "avc1.42";
}

class Package : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    shared_ = new TempDir();
    make_clip(*shared_ / "in.mp4", {.width = 640, .height = 360, .fps = kFps, .seconds = 7});
  }
  static void TearDownTestSuite() { delete shared_; }
  static std::string input() { return *shared_ / "in.mp4"; }

  ProcessResult package(const std::string& input, const std::string& kind,
                        std::vector<std::string> more = {}) {
    std::vector<std::string> args{"run",        input,       "--package", kind, "--package-dir",
                                  dir_ / "pkg", "--segment", "2",         "-q"};
    if (more.empty()) more = {"-o", "360p", "--size", "640x360", "-o", "180p", "--size", "320x180"};
    args.insert(args.end(), more.begin(), more.end());
    return transcode(args);
  }

  void expect_aligned(const std::vector<std::string>& renditions) {
    tc::testing::expect_aligned(dir_ / "pkg", renditions, kSegment, kFps, scratch_);
  }

  TempDir dir_;
  TempDir scratch_;
  static TempDir* shared_;
};

TempDir* Package::shared_ = nullptr;

TEST_F(Package, CmafHlsAndDashOverOneSetOfAlignedSegments) {
  ProcessResult run =
      package(input(), "cmaf",
              {"--json", "-o", "360p", "--size", "640x360", "-o", "180p", "--size", "320x180"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(dir_.entries(), std::vector<std::string>{"pkg"}) << "a partial directory was left";
  // ffprobe reads the master playlist and the MPD: both renditions and the audio.
  for (const char* manifest : {"master.m3u8", "manifest.mpd"}) {
    nlohmann::json streams = nlohmann::json::parse(ffprobe_json(
        {"-show_entries", "stream=codec_type,width,height", dir_ / "pkg/" + manifest}))["streams"];
    std::set<int> heights;
    int audio = 0;
    for (const auto& stream : streams) {
      if (stream["codec_type"] == "video") heights.insert(stream["height"].get<int>());
      if (stream["codec_type"] == "audio") ++audio;
    }
    EXPECT_EQ(heights, (std::set<int>{180, 360})) << manifest;
    EXPECT_GE(audio, 1) << manifest;
  }
  expect_aligned({"360p", "180p"});
  // The audio rendition is its own group, with segments too.
  std::vector<ProbedSegment> audio = probe_rendition(dir_ / "pkg/audio_1", scratch_, "a:0");
  EXPECT_EQ(audio.size(), 4u);
}

TEST_F(Package, ManifestFiguresMatchTheSegments) {
  ProcessResult run = package(input(), "hls");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::string master = read_file(dir_ / "pkg/master.m3u8");
  EXPECT_FALSE(file_exists(dir_ / "pkg/manifest.mpd")) << "hls alone writes no MPD";
  int64_t audio_peak = peak_bitrate(probe_rendition(dir_ / "pkg/audio_1", scratch_, "a:0"));
  for (const std::string name : {"360p", "180p"}) {
    std::map<std::string, std::string> inf = stream_inf_for(master, name + "/index.m3u8");
    ASSERT_FALSE(inf.empty()) << master;
    int64_t peak = peak_bitrate(probe_rendition(dir_ / "pkg/" + name, scratch_)) + audio_peak;
    EXPECT_NEAR(std::stod(inf["BANDWIDTH"]), double(peak), peak * 0.05) << name;
    // The init segment alone has no samples to read the profile from: with its first segment.
    std::string first = scratch_ / "first.mp4";
    std::ofstream(first, std::ios::binary) << read_file(dir_ / "pkg/" + name + "/init.mp4")
                                           << read_file(dir_ / "pkg/" + name + "/seg_00001.m4s");
    nlohmann::json stream = nlohmann::json::parse(
        ffprobe_json({"-select_streams", "v:0", "-show_entries",
                      "stream=profile,level,width,height", first}))["streams"][0];
    char level[8];
    std::snprintf(level, sizeof level, "%02x", stream["level"].get<int>());
    std::string codecs = inf["CODECS"];
    EXPECT_EQ(codecs.substr(0, 7), avc1_prefix(stream["profile"])) << codecs;
    EXPECT_EQ(codecs.substr(9, 2), level) << codecs;
    EXPECT_NE(codecs.find("mp4a.40.2"), std::string::npos) << codecs;
    EXPECT_EQ(inf["RESOLUTION"], std::to_string(stream["width"].get<int>()) + "x" +
                                     std::to_string(stream["height"].get<int>()));
  }
}

TEST_F(Package, VariableFrameRateSourceStillAligns) {
  // Every seventh frame and every frame on a segment boundary dropped: the frame times no
  // longer fall on a regular grid, and no frame falls on a boundary.
  std::string vfr = dir_ / "vfr.mp4";
  ProcessResult made = run_process({"ffmpeg", "-v", "error", "-y", "-i", input(), "-vf",
                                    "select='not(eq(mod(n\\,7)\\,4)+eq(mod(n\\,60)\\,0))'",
                                    "-fps_mode", "vfr", "-c:v", "libx264", "-an", vfr});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  ProcessResult run = package(vfr, "hls");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::vector<std::vector<ProbedSegment>> probed;
  for (const char* name : {"360p", "180p"})
    probed.push_back(probe_rendition(dir_ / "pkg/" + name, scratch_));
  ASSERT_GE(probed[0].size(), 3u);
  ASSERT_EQ(probed[0].size(), probed[1].size());
  for (size_t i = 0; i < probed[0].size(); ++i) {
    EXPECT_TRUE(probed[0][i].starts_with_key && probed[1][i].starts_with_key) << i + 1;
    EXPECT_NEAR(probed[0][i].first_pts, probed[1][i].first_pts, 0.5 / kFps) << i + 1;
    // A segment starts at the first frame at or past its boundary: within 2 source frames.
    EXPECT_NEAR(probed[0][i].first_pts - probed[0][0].first_pts, i * kSegment, 2.0 / kFps) << i + 1;
  }
}

TEST_F(Package, DashAloneWritesTheMpd) {
  ProcessResult run = package(input(), "dash");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(file_exists(dir_ / "pkg/master.m3u8"));
  std::string mpd = read_file(dir_ / "pkg/manifest.mpd");
  EXPECT_NE(mpd.find("type=\"static\""), std::string::npos);
  nlohmann::json streams = nlohmann::json::parse(
      ffprobe_json({"-show_entries", "stream=codec_type", dir_ / "pkg/manifest.mpd"}))["streams"];
  EXPECT_EQ(streams.size(), 3u);
}

TEST_F(Package, ReplacesAnEarlierPackageWhole) {
  ASSERT_EQ(package(input(), "hls").exit_code, 0);
  ProcessResult run = package(input(), "dash", {"-o", "only", "--size", "320x180"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(file_exists(dir_ / "pkg/360p/init.mp4")) << "the earlier package was merged";
  EXPECT_TRUE(file_exists(dir_ / "pkg/only/init.mp4"));
  EXPECT_EQ(dir_.entries(), std::vector<std::string>{"pkg"});
}

TEST_F(Package, CancelLeavesNoPartialDirectory) {
  make_clip(dir_ / "long.mp4", {.width = 640, .height = 360, .seconds = 20, .audio = false});
  int exit_code =
      interrupt_once_written({"run", dir_ / "long.mp4", "--package", "hls", "--package-dir",
                              dir_ / "pkg", "--preset", "veryslow", "-o", "a"},
                             dir_ / ".pkg.partial/a/init.mp4");
  ASSERT_NE(exit_code, -1) << "the package was never started";
  EXPECT_EQ(exit_code, kExitCancelled);
  EXPECT_EQ(dir_.entries(), std::vector<std::string>{"long.mp4"});
}

TEST_F(Package, FailureLeavesNoPartialDirectory) {
  // The second rendition's encoder refuses its preset when it opens: by then the package's
  // directory holds the first rendition's init segment.
  ProcessResult run = package(input(), "hls",
                              {"-o", "a", "--size", "320x180", "-o", "b", "--size", "160x90",
                               "--preset", "no-such-preset"});
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find("libx264"), std::string::npos) << run.err;
  EXPECT_TRUE(dir_.entries().empty()) << run.err;
}

struct BadOption {
  std::vector<std::string> args;
  std::string says;
};

TEST_F(Package, BadOptionsExitTwoNamingTheOption) {
  std::string out = dir_ / "pkg";
  for (const BadOption& bad : std::vector<BadOption>{
           {{"--package", "hls", "--package-dir", out, "--segment", "0", "-o", "a"}, "--segment"},
           {{"--package", "hls", "--package-dir", out, "--segment", "-2", "-o", "a"}, "--segment"},
           {{"--package", "hls", "--package-dir", out, "-o", "a", "--codec", "vp9"}, "codec"},
           {{"--package", "hls", "--package-dir", out, "-o", "a", "--codec", "copy"}, "codec"},
           {{"--package", "smooth", "--package-dir", out, "-o", "a"}, "--package"},
           {{"--package", "hls", "-o", "a"}, "--package-dir"},
           {{"--segment", "4", "-o", dir_ / "a.mp4"}, "--package"},
           {{"--package", "hls", "--package-dir", out, "-o", "../a"}, "outputs[0].path"},
       }) {
    std::vector<std::string> args{"run", input()};
    args.insert(args.end(), bad.args.begin(), bad.args.end());
    ProcessResult run = transcode(args);
    EXPECT_EQ(run.exit_code, kExitUsage) << bad.says << ": " << run.err;
    EXPECT_NE(run.err.find(bad.says), std::string::npos) << run.err;
  }
  EXPECT_TRUE(dir_.entries().empty());
}

TEST_F(Package, DryRunShowsTheGopAndSegmentPlan) {
  ProcessResult run = package(input(), "cmaf", {"--dry-run", "-o", "360p"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("segment GOP: 60 frames at 30 fps"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("keyframes forced by time at every 2 s"), std::string::npos);
  EXPECT_NE(run.out.find("sc_threshold 0"), std::string::npos) << run.out;
  EXPECT_TRUE(dir_.entries().empty());
}

}  // namespace
}  // namespace tc::testing
