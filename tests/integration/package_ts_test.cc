// `transcode run --package hls --segment-format ts`: MPEG-TS segments for old HLS clients,
// checked with ffprobe and the TS packets' own headers (never with our own report): every
// segment stands alone (PAT/PMT first, an IDR with its parameter sets, decodable by itself),
// the renditions' segments start with keyframes at the same times, the continuity counters run
// on across segments, and the master's figures match the segments.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "service/common/exit_codes.h"
#include "tests/support/media_tools.h"
#include "tests/support/package_probe.h"

namespace tc::testing {
namespace {

constexpr int kFps = 30;
constexpr double kSegment = 2;
constexpr size_t kTsPacket = 188;

// The PID of the first packet that is not the SDT (service names, which may come first).
int first_table(const std::string& bytes) {
  constexpr int kSdtPid = 0x11;
  for (size_t at = 0; at + kTsPacket <= bytes.size(); at += kTsPacket)
    if (ts_pid(bytes, at) != kSdtPid) return ts_pid(bytes, at);
  return -1;
}

// The segments of a rendition read one after the other, as a player does: every packet in
// sync, and each PID's continuity counter one more than its previous payload's (mod 16).
// Returns the discontinuities and bad packets it found.
int continuity_breaks(const std::string& dir) {
  std::string stream;
  for (const std::string& name : playlist_segments(dir + "/index.m3u8"))
    stream += read_file(dir + "/" + name);
  if (stream.empty() || stream.size() % kTsPacket != 0) return 1;
  std::map<int, int> last_counter;
  int breaks = 0;
  for (size_t at = 0; at < stream.size(); at += kTsPacket) {
    if (stream[at] != 0x47) return breaks + 1;
    auto flags = static_cast<unsigned char>(stream[at + 3]);
    if (!(flags & 0x10)) continue;  // no payload: the counter does not advance
    int counter = flags & 0x0f;
    auto [it, first] = last_counter.emplace(ts_pid(stream, at), counter);
    if (!first && counter != (it->second + 1) % 16) ++breaks;
    it->second = counter;
  }
  return breaks;
}

class TsPackage : public ::testing::Test {
 protected:
  // One package for the suite: the tests read it.
  static void SetUpTestSuite() {
    shared_ = new TempDir();
    make_clip(*shared_ / "in.mp4", {.width = 640, .height = 360, .fps = kFps, .seconds = 7});
    made_ = new ProcessResult(
        transcode({"run", *shared_ / "in.mp4", "--package", "hls", "--segment-format", "ts",
                   "--package-dir", *shared_ / "pkg", "--segment", "2", "-q", "-o", "360p",
                   "--size", "640x360", "-o", "180p", "--size", "320x180"}));
  }
  static void TearDownTestSuite() {
    delete made_;
    delete shared_;
  }
  void SetUp() override { ASSERT_EQ(made_->exit_code, 0) << made_->err; }
  static std::string pkg() { return *shared_ / "pkg"; }

  TempDir scratch_;
  static TempDir* shared_;
  static ProcessResult* made_;
};

TempDir* TsPackage::shared_ = nullptr;
ProcessResult* TsPackage::made_ = nullptr;

TEST_F(TsPackage, FfprobeReadsTheMasterAndEveryRendition) {
  EXPECT_EQ(shared_->entries(), (std::vector<std::string>{"in.mp4", "pkg"}))
      << "a partial directory was left";
  EXPECT_FALSE(file_exists(pkg() + "/manifest.mpd"));
  nlohmann::json streams = nlohmann::json::parse(ffprobe_json(
      {"-show_entries", "stream=codec_type,codec_name,height", pkg() + "/master.m3u8"}))["streams"];
  std::set<int> heights;
  std::set<std::string> codecs;
  for (const auto& stream : streams) {
    codecs.insert(stream["codec_name"].get<std::string>());
    if (stream["codec_type"] == "video") heights.insert(stream["height"].get<int>());
  }
  EXPECT_EQ(heights, (std::set<int>{180, 360}));
  EXPECT_EQ(codecs, (std::set<std::string>{"h264", "aac"}));
  for (const char* rendition : {"360p", "180p", "audio_1"}) {
    std::string dir = pkg() + "/" + rendition;
    std::string playlist = read_file(dir + "/index.m3u8");
    EXPECT_EQ(playlist.find("#EXT-X-MAP"), std::string::npos) << playlist;
    EXPECT_NE(playlist.find("#EXT-X-VERSION:3\n"), std::string::npos) << playlist;
    EXPECT_FALSE(file_exists(dir + "/init.mp4")) << rendition;
    std::vector<std::string> segments = playlist_segments(dir + "/index.m3u8");
    EXPECT_EQ(segments.size(), 4u) << rendition;
    for (const std::string& name : segments) EXPECT_TRUE(name.ends_with(".ts")) << name;
  }
}

TEST_F(TsPackage, EverySegmentStandsAloneAndStartsAlignedWithAKeyframe) {
  expect_aligned(pkg(), {"360p", "180p"}, kSegment, kFps, scratch_);
  for (const char* rendition : {"360p", "180p"}) {
    std::string dir = pkg() + "/" + rendition;
    for (const std::string& name : playlist_segments(dir + "/index.m3u8")) {
      std::string path = dir + "/" + name;
      std::string bytes = read_file(path);
      ASSERT_GE(bytes.size(), kTsPacket) << path;
      EXPECT_EQ(first_table(bytes), 0) << path << " does not start with its PAT";
      // Decoded alone: the first frame an I frame, and every packet a frame (nothing lost to a
      // missing SPS/PPS or reference).
      nlohmann::json frames =
          nlohmann::json::parse(ffprobe_json({"-select_streams", "v:0", "-show_entries",
                                              "frame=key_frame,pict_type", path}))["frames"];
      nlohmann::json packets = nlohmann::json::parse(ffprobe_json(
          {"-select_streams", "v:0", "-show_entries", "packet=flags", path}))["packets"];
      ASSERT_FALSE(frames.empty()) << path;
      EXPECT_EQ(frames[0]["key_frame"], 1) << path;
      EXPECT_EQ(frames[0]["pict_type"], "I") << path;
      EXPECT_EQ(frames.size(), packets.size()) << path;
    }
  }
}

TEST_F(TsPackage, ContinuityCountersRunOnAcrossSegments) {
  for (const char* rendition : {"360p", "180p", "audio_1"})
    EXPECT_EQ(continuity_breaks(pkg() + "/" + rendition), 0) << rendition;
}

TEST_F(TsPackage, AudioIsItsOwnTsRendition) {
  std::vector<ProbedSegment> audio = probe_rendition(pkg() + "/audio_1", scratch_, "a:0");
  ASSERT_EQ(audio.size(), 4u);
  nlohmann::json streams = nlohmann::json::parse(ffprobe_json(
      {"-show_entries", "stream=codec_type,codec_name",
       pkg() + "/audio_1/" + playlist_segments(pkg() + "/audio_1/index.m3u8")[0]}))["streams"];
  ASSERT_EQ(streams.size(), 1u);
  EXPECT_EQ(streams[0]["codec_name"], "aac");
  // Starts with the video: TS timestamps are absolute, the same offset in every rendition.
  std::vector<ProbedSegment> video = probe_rendition(pkg() + "/360p", scratch_);
  EXPECT_NEAR(audio[0].first_pts, video[0].first_pts, 0.05);
  EXPECT_NEAR(audio[1].first_pts, video[1].first_pts, 0.05);
}

TEST_F(TsPackage, ManifestFiguresMatchTheSegments) {
  expect_manifest_figures(pkg(), {"360p", "180p"}, scratch_);
}

TEST_F(TsPackage, DryRunShowsTsSegments) {
  ProcessResult run =
      transcode({"run", *shared_ / "in.mp4", "--package", "hls", "--segment-format", "ts",
                 "--package-dir", scratch_ / "pkg", "--dry-run", "-o", "360p"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("mpeg-ts segments"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("360p/seg_{n}.ts"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("init.mp4"), std::string::npos) << run.out;
}

struct BadTsOption {
  std::vector<std::string> args;
  std::string says;
};

TEST_F(TsPackage, TsOutsideHlsExitsTwoNamingTheOption) {
  std::string out = scratch_ / "pkg";
  for (const BadTsOption& bad : std::vector<BadTsOption>{
           {{"--package", "dash", "--segment-format", "ts", "--package-dir", out, "-o", "a"},
            "--segment-format"},
           {{"--package", "cmaf", "--segment-format", "ts", "--package-dir", out, "-o", "a"},
            "--segment-format"},
           {{"--package", "hls", "--segment-format", "mkv", "--package-dir", out, "-o", "a"},
            "--segment-format"},
           {{"--segment-format", "ts", "-o", scratch_ / "a.mp4"}, "--package"},
           {{"--package", "hls", "--segment-format", "ts", "--package-dir", out, "-o", "a",
             "--codec", "hevc"},
            "outputs[0].codec"},
       }) {
    std::vector<std::string> args{"run", *shared_ / "in.mp4"};
    args.insert(args.end(), bad.args.begin(), bad.args.end());
    ProcessResult run = transcode(args);
    EXPECT_EQ(run.exit_code, kExitUsage) << bad.says << ": " << run.err;
    EXPECT_NE(run.err.find(bad.says), std::string::npos) << run.err;
  }
  // The job file (the daemon's job config) names the field.
  std::string job = scratch_ / "job.json";
  std::ofstream(job) << nlohmann::json{{"input", *shared_ / "in.mp4"},
                                       {"outputs", {{{"path", "a"}}}},
                                       {"package",
                                        {{"kind", "dash"}, {"dir", out}, {"segment_format", "ts"}}}}
                            .dump();
  ProcessResult run = transcode({"run", "--job", job});
  EXPECT_EQ(run.exit_code, kExitUsage) << run.err;
  EXPECT_NE(run.err.find("package.segment_format"), std::string::npos) << run.err;
  EXPECT_FALSE(file_exists(out));
}

}  // namespace
}  // namespace tc::testing
