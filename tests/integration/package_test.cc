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
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "service/common/exit_codes.h"
#include "tests/support/media_tools.h"
#include "tests/support/mp4_boxes.h"
#include "tests/support/package_probe.h"

namespace tc::testing {
namespace {

constexpr int kFps = 30;
constexpr double kSegment = 2;

// A DASH representation's SegmentTimeline: each segment's start, in its timescale.
struct DashTimeline {
  std::string id;
  int64_t timescale = 0;
  int64_t presentation_time_offset = 0;
  std::vector<int64_t> starts;
};

std::vector<DashTimeline> dash_timelines(const std::string& mpd) {
  std::vector<DashTimeline> timelines;
  std::regex representation(R"re(<Representation id="([^"]+)"[\s\S]*?</Representation>)re");
  std::regex timescale(R"re(timescale="(\d+)")re");
  std::regex offset(R"re(presentationTimeOffset="(\d+)")re");
  std::regex segment(R"re(<S ([^/]*)/>)re");
  std::regex attribute(R"re((\w+)="(\d+)")re");
  for (std::sregex_iterator it(mpd.begin(), mpd.end(), representation), end; it != end; ++it) {
    DashTimeline timeline{(*it)[1], 0, 0, {}};
    std::string block = (*it)[0];
    std::smatch match;
    if (std::regex_search(block, match, timescale)) timeline.timescale = std::stoll(match[1]);
    if (std::regex_search(block, match, offset))
      timeline.presentation_time_offset = std::stoll(match[1]);
    int64_t next = 0;
    for (std::sregex_iterator s(block.begin(), block.end(), segment); s != end; ++s) {
      std::string text = (*s)[1];
      std::map<std::string, int64_t> values{{"t", next}, {"r", 0}};
      for (std::sregex_iterator a(text.begin(), text.end(), attribute); a != end; ++a)
        values[(*a)[1]] = std::stoll((*a)[2]);
      for (int64_t r = 0; r <= values["r"]; ++r) {
        timeline.starts.push_back(values["t"] + r * values["d"]);
        next = values["t"] + (r + 1) * values["d"];
      }
    }
    timelines.push_back(timeline);
  }
  return timelines;
}

// Media segment `i` (from 0) of a representation, by the MPD's template.
std::string dash_segment(const std::string& dir, size_t i) {
  char name[32];
  std::snprintf(name, sizeof name, "/seg_%05zu.m4s", i + 1);
  return dir + name;
}

// The media files (init segments and segments) a package's MPD names: each SegmentTemplate's
// initialization, and its media template expanded for every S of its timeline (and its repeats),
// relative to the package's directory.
std::set<std::string> files_the_mpd_names(const std::string& mpd_text) {
  std::set<std::string> files;
  static const std::regex templ(R"re(<SegmentTemplate[^>]*initialization="([^"]+)")re"
                                R"re([^>]*media="([^"]+)"[^>]*startNumber="(\d+)"[^>]*>)re"
                                R"re(([\s\S]*?)</SegmentTemplate>)re");
  static const std::regex segment(R"re(<S\b([^>]*)/>)re");
  static const std::regex repeat(R"re(\br="(\d+)")re");
  static const std::regex number(R"re(\$Number(?:%0(\d+)d)?\$)re");  // $Number%05d$
  for (std::sregex_iterator t(mpd_text.begin(), mpd_text.end(), templ), end; t != end; ++t) {
    files.insert((*t)[1]);
    std::string media = (*t)[2], timeline = (*t)[4];
    int n = std::stoi((*t)[3]);
    for (std::sregex_iterator s(timeline.begin(), timeline.end(), segment); s != end; ++s) {
      std::smatch r;
      std::string attributes = (*s)[1];
      int repeats = std::regex_search(attributes, r, repeat) ? std::stoi(r[1]) : 0;
      for (int k = 0; k <= repeats; ++k, ++n) {
        std::smatch at;
        if (!std::regex_search(media, at, number)) continue;
        std::string digits = std::to_string(n);
        size_t width = at[1].matched ? std::stoul(at[1].str()) : 0;
        if (digits.size() < width) digits.insert(0, width - digits.size(), '0');
        files.insert(at.prefix().str() + digits + at.suffix().str());
      }
    }
  }
  return files;
}

// The media files the HLS master playlist reaches: every media playlist it lists (variants and
// EXT-X-MEDIA groups), and in each, its EXT-X-MAP and its segments, relative to `dir`.
std::set<std::string> files_the_hls_names(const std::string& dir) {
  std::set<std::string> files;
  static const std::regex uri(R"re(URI="([^"]+)")re");
  auto named_in = [&](const std::string& text, auto&& each) {
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      std::smatch at;
      if (line.rfind("#EXT-X-MEDIA:", 0) == 0 || line.rfind("#EXT-X-MAP:", 0) == 0) {
        if (std::regex_search(line, at, uri)) each(at[1].str());
      } else if (!line.empty() && line[0] != '#') {
        each(line);
      }
    }
  };
  named_in(read_file(dir + "/master.m3u8"), [&](const std::string& playlist) {
    std::string base = playlist.substr(0, playlist.rfind('/') + 1);
    named_in(read_file(dir + "/" + playlist),
             [&](const std::string& file) { files.insert(base + file); });
  });
  return files;
}

// Every file under `dir` but the manifests, the playlists and hidden files (the package's own
// bookkeeping, such as its ownership marker), relative to it.
std::set<std::string> media_files_in(const std::string& dir) {
  std::set<std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    std::string ext = entry.path().extension();
    bool hidden = entry.path().filename().string().starts_with(".");
    if (entry.is_regular_file() && !hidden && ext != ".m3u8" && ext != ".mpd")
      files.insert(std::filesystem::relative(entry.path(), dir).string());
  }
  return files;
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
  // One set: the MPD and the HLS playlists name the same files, and those are every media file
  // in the package (3 renditions x (init + 4 segments)).
  std::set<std::string> on_disk = media_files_in(dir_ / "pkg");
  EXPECT_EQ(on_disk.size(), 15u);
  EXPECT_EQ(files_the_mpd_names(read_file(dir_ / "pkg/manifest.mpd")), on_disk);
  EXPECT_EQ(files_the_hls_names(dir_ / "pkg"), on_disk);
}

TEST_F(Package, ManifestFiguresMatchTheSegments) {
  ProcessResult run = package(input(), "hls");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(file_exists(dir_ / "pkg/manifest.mpd")) << "hls alone writes no MPD";
  expect_manifest_figures(dir_ / "pkg", {"360p", "180p"}, scratch_);
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

// DASH and AAC's priming: the audio's first packet is 1024 samples before 0, and the fMP4
// segments' media time counts from it. Per the MPD, the tone that starts 3 s into the source
// must be presented 3 s after the video's first frame, as in the source; and every segment's
// start in the MPD must be the media time its tfdt, composition offset and edit list say.
TEST_F(Package, DashAudioLinesUpWithTheVideo) {
  std::string clip = dir_ / "tone.mp4";
  ProcessResult made = run_process({"ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                                    "testsrc2=size=320x180:rate=30", "-f", "lavfi", "-i",
                                    "aevalsrc='if(gte(t,3),0.5*sin(2*PI*1000*t),0)':s=48000", "-t",
                                    "7", "-c:v", "libx264", "-c:a", "aac", clip});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  ProcessResult run = package(clip, "dash", {"-o", "180p", "--size", "320x180"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::vector<DashTimeline> timelines = dash_timelines(read_file(dir_ / "pkg/manifest.mpd"));
  ASSERT_EQ(timelines.size(), 2u);
  for (const DashTimeline& timeline : timelines) {
    std::string dir = dir_ / ("pkg/" + timeline.id);
    std::optional<InitTiming> init = read_init_timing(read_file(dir + "/init.mp4"));
    ASSERT_TRUE(init) << timeline.id;
    EXPECT_EQ(timeline.timescale, init->timescale) << timeline.id;
    EXPECT_FALSE(init->empty_edit) << timeline.id;
    ASSERT_EQ(timeline.starts.size(), 4u) << timeline.id;
    for (size_t i = 0; i < timeline.starts.size(); ++i) {
      std::string segment = dash_segment(dir, i);
      std::optional<FragmentTiming> fragment = read_fragment_timing(read_file(segment));
      ASSERT_TRUE(fragment) << segment;
      EXPECT_EQ(timeline.starts[i], int64_t(fragment->base_decode_time) +
                                        fragment->first_composition_offset - init->edit_media_time)
          << segment;
    }
  }
  const DashTimeline& video = timelines[0];
  const DashTimeline& audio = timelines[1];
  EXPECT_EQ(video.starts[0] - video.presentation_time_offset, 0) << "the first frame at 0";
  // The audio decoded from its first segment's start: where the tone begins, per the MPD.
  std::string joined = scratch_ / "audio.mp4";
  std::ofstream out(joined, std::ios::binary);
  out << read_file(dir_ / "pkg/audio_1/init.mp4");
  for (size_t i = 0; i < audio.starts.size(); ++i)
    out << read_file(dash_segment(dir_ / "pkg/audio_1", i));
  out.close();
  ProcessResult pcm = run_process({"ffmpeg", "-v", "error", "-i", joined, "-map", "0:a:0", "-f",
                                   "s16le", "-acodec", "pcm_s16le", "-ac", "1", "-"});
  ASSERT_EQ(pcm.exit_code, 0) << pcm.err;
  int64_t onset = -1;
  for (size_t i = 0; i + 1 < pcm.out.size(); i += 2) {
    int16_t sample = int16_t(uint16_t(static_cast<unsigned char>(pcm.out[i])) |
                             uint16_t(static_cast<unsigned char>(pcm.out[i + 1])) << 8);
    if (std::abs(int(sample)) > 0.25 * 0.5 * 32767) {
      onset = int64_t(i / 2);
      break;
    }
  }
  ASSERT_GE(onset, 0) << "no tone decoded";
  double presented =
      double(audio.starts[0] + onset - audio.presentation_time_offset) / double(audio.timescale);
  EXPECT_NEAR(presented, 3.0, 0.002)
      << "the audio is off the video by " << presented - 3.0 << " s per the MPD";
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
                              dir_ / "pkg", "--encoder-preset", "veryslow", "-o", "a"},
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
                               "--encoder-preset", "no-such-preset"});
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
