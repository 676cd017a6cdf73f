// The timeline of fMP4 packages (issue 38): every track of a package on the source's timeline, so
// a flash and its beep stay together in HLS fMP4, DASH and CMAF as in TS segments and files; a
// VFR source's frames keep their times; AAC samples keep their 1024-sample durations. Measured
// with the ffmpeg CLI reading the packages (tests/support/av_sync.h), never with our report.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "tests/support/av_sync.h"
#include "tests/support/corpus.h"
#include "tests/support/media_tools.h"
#include "tests/support/mp4_boxes.h"
#include "tests/support/package_probe.h"

namespace tc::testing {
namespace {

constexpr double kFrame = 0.040;  // one frame of the 25 fps sync source

class PackageSync : public ::testing::Test {
 protected:
  // `transcode run SOURCE --package KIND` into pkg/ (one 320x240 rendition, 2 s segments).
  void package(const std::string& source, const std::string& kind,
               std::vector<std::string> more = {}) {
    std::vector<std::string> args{"run",        source,   "--package", kind, "--package-dir",
                                  dir_ / "pkg", "-q",     "--segment", "2",  "-o",
                                  "240p",       "--size", "320x240"};
    args.insert(args.end(), more.begin(), more.end());
    ProcessResult run = transcode(args);
    ASSERT_EQ(run.exit_code, 0) << run.err;
  }

  // The sync marks of `input`: every mark within a frame.
  void expect_in_sync(const std::string& input, size_t marks_at_least) {
    std::vector<SyncMark> marks = measure_sync(input);
    ASSERT_GE(marks.size(), marks_at_least) << input;
    for (const SyncMark& mark : marks)
      EXPECT_LE(std::abs(mark.offset_s), kFrame)
          << input << ": the beep is " << mark.offset_s * 1000 << " ms off the flash at "
          << mark.flash_s << " s";
  }

  // Every package type and a file over `source`.
  void expect_every_output_in_sync(const std::string& source, size_t marks) {
    for (const char* kind : {"hls", "dash", "cmaf"}) {
      SCOPED_TRACE(kind);
      package(source, kind);
      std::string pkg = dir_ / "pkg";
      if (std::string(kind) != "dash") expect_in_sync(pkg + "/master.m3u8", marks);
      if (std::string(kind) != "hls") expect_in_sync(pkg + "/manifest.mpd", marks);
    }
    package(source, "hls", {"--segment-format", "ts"});
    expect_in_sync(dir_ / "pkg/master.m3u8", marks);
    ProcessResult file = transcode({"run", source, "-q", "-o", dir_ / "out.mp4"});
    ASSERT_EQ(file.exit_code, 0) << file.err;
    expect_in_sync(dir_ / "out.mp4", marks);
  }

  TempDir dir_;
};

// A capture whose audio starts 0.5 s before its video: each track of an fMP4 package used to
// start its media time at its own first packet, which put every beep 0.5 s before its flash.
TEST_F(PackageSync, AudioLeadingVideoStaysInSyncInEveryPackage) {
  std::string source = dir_ / "capture.ts";
  corpus::flash_beep(source, 6, 0.5, "mpegts");
  expect_every_output_in_sync(source, 5);
}

TEST_F(PackageSync, MatroskaSourceStaysInSyncInEveryPackage) {
  std::string source = dir_ / "capture.mkv";
  corpus::flash_beep(source, 6, 0.5, "matroska");
  expect_every_output_in_sync(source, 5);
}

// A broadcast recording cut inside a GOP: the video starts on a P-frame, 1 s after the audio.
TEST_F(PackageSync, TsCutMidGopStaysInSync) {
  std::string source = dir_ / "cut.ts";
  corpus::broadcast_ts_cut_mid_gop(source);
  for (const char* kind : {"hls", "dash"}) {
    SCOPED_TRACE(kind);
    package(source, kind);
    expect_in_sync(dir_ / (std::string("pkg/") +
                           (kind == std::string("hls") ? "master.m3u8" : "manifest.mpd")),
                   3);
  }
}

// The presentation times of every video packet of `path`, from the first, sorted.
std::vector<double> frame_times(const std::string& path) {
  nlohmann::json packets = nlohmann::json::parse(ffprobe_json(
      {"-select_streams", "v:0", "-show_entries", "packet=pts_time", path}))["packets"];
  std::vector<double> times;
  for (const auto& packet : packets)
    times.push_back(std::stod(packet["pts_time"].get<std::string>()));
  std::sort(times.begin(), times.end());
  double first = times.empty() ? 0 : times.front();
  for (double& time : times) time -= first;
  return times;
}

// A rendition's init segment and media segments (its playlist's order) as one file.
std::string joined_rendition(const std::string& dir, const std::string& to) {
  std::ofstream out(to, std::ios::binary);
  out << read_file(dir + "/init.mp4");
  for (const std::string& name : playlist_segments(dir + "/index.m3u8"))
    out << read_file(dir + "/" + name);
  return to;
}

double extinf_sum(const std::string& playlist) {
  static const std::regex extinf(R"re(#EXTINF:([\d.]+),)re");
  std::string text = read_file(playlist);
  double sum = 0;
  for (std::sregex_iterator it(text.begin(), text.end(), extinf), end; it != end; ++it)
    sum += std::stod((*it)[1]);
  return sum;
}

// The S elements of the MPD's only video Representation: each start and duration.
std::vector<std::pair<int64_t, int64_t>> video_timeline(const std::string& mpd) {
  static const std::regex segment(R"re(<S (?:t="(\d+)" )?d="(\d+)"/>)re");
  size_t from = mpd.find("contentType=\"video\"");
  std::string set = mpd.substr(from, mpd.find("</AdaptationSet>", from) - from);
  std::vector<std::pair<int64_t, int64_t>> timeline;
  for (std::sregex_iterator it(set.begin(), set.end(), segment), end; it != end; ++it) {
    int64_t start =
        (*it)[1].matched ? std::stoll((*it)[1]) : timeline.back().first + timeline.back().second;
    timeline.push_back({start, std::stoll((*it)[2])});
  }
  return timeline;
}

// A screen recording: bursts at 60 fps with still gaps of 1.5 s. Every frame keeps its time,
// a segment after a gap starts (is decoded and shown) at its first frame, the playlist and the
// MPD agree with the media, and FRAME-RATE is the bursts' 60.
TEST_F(PackageSync, VariableFrameRateKeepsTheMediaTimes) {
  std::string source = dir_ / "screen.mp4";
  corpus::screen_recording_vfr(source);
  std::vector<double> source_times = frame_times(source);
  package(source, "cmaf");
  std::string video = dir_ / "pkg/240p";
  std::vector<double> times = frame_times(joined_rendition(video, dir_ / "joined.mp4"));
  ASSERT_EQ(times.size(), source_times.size());
  for (size_t i = 0; i < times.size(); ++i)
    EXPECT_NEAR(times[i], source_times[i], 0.001) << "frame " << i;

  double media = source_times.back() + 1.0 / 60;
  EXPECT_NEAR(extinf_sum(video + "/index.m3u8"), media, 1.0 / 60);
  EXPECT_EQ(stream_inf_for(read_file(dir_ / "pkg/master.m3u8"), "240p/index.m3u8")["FRAME-RATE"],
            "60.000");

  std::vector<std::pair<int64_t, int64_t>> timeline =
      video_timeline(read_file(dir_ / "pkg/manifest.mpd"));
  std::vector<std::string> segments = playlist_segments(video + "/index.m3u8");
  ASSERT_EQ(timeline.size(), segments.size());
  ASSERT_EQ(timeline.size(), 3u);
  std::optional<InitTiming> init = read_init_timing(read_file(video + "/init.mp4"));
  ASSERT_TRUE(init);
  for (size_t i = 0; i < segments.size(); ++i) {
    std::string bytes = read_file(video + "/" + segments[i]);
    std::optional<FragmentTiming> fragment = read_fragment_timing(bytes);
    ASSERT_TRUE(fragment) << segments[i];
    // S@t: the segment's earliest presentation, from tfdt and the first composition offset.
    EXPECT_EQ(timeline[i].first,
              int64_t(fragment->base_decode_time) + fragment->first_composition_offset)
        << segments[i];
    // Decoded at its time, not by the previous segment's durations (1.5 s early).
    EXPECT_LE(fragment->first_composition_offset, int64_t(init->timescale) / 10) << segments[i];
    std::vector<uint32_t> durations = read_sample_durations(bytes);
    int64_t sum = 0;
    for (uint32_t duration : durations) sum += duration;
    // S@d: the samples' durations, so the next tfdt follows on.
    EXPECT_EQ(timeline[i].second, sum) << segments[i];
    EXPECT_NEAR(double(timeline[i].first - timeline[0].first) / init->timescale, 2.0 * i, 1e-3)
        << segments[i];
  }
}

// AAC from a Matroska source (millisecond timestamps): every sample lasts its 1024 samples
// (the packets' times used to make 1008 and 1056).
TEST_F(PackageSync, AacSamplesLast1024FromMillisecondTimestamps) {
  std::string source = dir_ / "capture.mkv";
  corpus::flash_beep(source, 6, 0.5, "matroska");
  package(source, "hls");
  std::string audio = dir_ / "pkg/audio_1";
  std::vector<std::string> segments = playlist_segments(audio + "/index.m3u8");
  ASSERT_GE(segments.size(), 3u);
  for (const std::string& segment : segments) {
    std::vector<uint32_t> durations = read_sample_durations(read_file(audio + "/" + segment));
    ASSERT_FALSE(durations.empty()) << segment;
    for (size_t i = 0; i < durations.size(); ++i)
      EXPECT_EQ(durations[i], 1024u) << segment << " sample " << i;
  }
}

// The durations of the EXTINF lines of `playlist`, in order.
std::vector<double> extinfs(const std::string& playlist) {
  static const std::regex extinf(R"re(#EXTINF:([\d.]+),)re");
  std::string text = read_file(playlist);
  std::vector<double> durations;
  for (std::sregex_iterator it(text.begin(), text.end(), extinf), end; it != end; ++it)
    durations.push_back(std::stod((*it)[1]));
  return durations;
}

// A broadcast capture's timestamps start where the recorder joined (the cut TS's first picture
// is 3.92 s in): its segments are a whole segment duration from its first frame, not from time 0
// (which made the first segment 0.08 s). The video lasts 4 s: two segments of 2 s, by the
// playlist and by the frames ffprobe reads in the first segment, in fMP4 and TS.
TEST_F(PackageSync, ATsThatStartsLateGetsAFullFirstSegment) {
  std::string source = dir_ / "cut.ts";
  corpus::broadcast_ts_cut_mid_gop(source);
  for (const char* format : {"fmp4", "ts"}) {
    SCOPED_TRACE(format);
    package(source, "hls", {"--segment-format", format});
    std::string rendition = dir_ / "pkg/240p";
    std::vector<double> durations = extinfs(rendition + "/index.m3u8");
    ASSERT_EQ(durations.size(), 2u);
    EXPECT_DOUBLE_EQ(durations[0], 2.0);
    EXPECT_DOUBLE_EQ(durations[1], 2.0);
    std::string first = dir_ / "first";
    if (std::string(format) == "fmp4") {
      std::ofstream(first, std::ios::binary)
          << read_file(rendition + "/init.mp4") << read_file(rendition + "/seg_00001.m4s");
    } else {
      std::filesystem::copy_file(rendition + "/seg_00001.ts", first,
                                 std::filesystem::copy_options::overwrite_existing);
    }
    std::vector<double> times = frame_times(first);
    ASSERT_EQ(times.size(), 50u);  // 2 s of 25 fps
    EXPECT_NEAR(times.back() + kFrame, 2.0, 0.001);
  }
}

}  // namespace
}  // namespace tc::testing
