// I-frame playlists (RFC 8216 4.3.3.6, 4.3.4.3) in HLS packages, fMP4 and MPEG-TS: the master
// names one per video rendition (EXT-X-I-FRAME-STREAM-INF with BANDWIDTH, RESOLUTION, CODECS,
// URI), and every entry's byte range, cut out of its segment (after the init segment, or a TS
// segment's own PAT/PMT), is decoded by ffprobe as exactly one key frame; the entries are the
// segments' keyframes, all of them. Checked with ffprobe and the bytes, never our report.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "tests/support/corpus.h"
#include "tests/support/media_tools.h"
#include "tests/support/package_probe.h"

namespace tc::testing {
namespace {

constexpr size_t kTsPacket = 188;

struct IFrameEntry {
  double seconds = 0;
  int64_t length = 0;
  int64_t offset = 0;
  std::string uri;
};

std::vector<IFrameEntry> iframe_entries(const std::string& playlist) {
  std::vector<IFrameEntry> entries;
  IFrameEntry entry;
  std::istringstream lines(playlist);
  for (std::string line; std::getline(lines, line);) {
    std::smatch match;
    if (std::regex_match(line, match, std::regex(R"(#EXTINF:([0-9.]+),)"))) {
      entry.seconds = std::stod(match[1]);
    } else if (std::regex_match(line, match, std::regex(R"(#EXT-X-BYTERANGE:(\d+)@(\d+))"))) {
      entry.length = std::stoll(match[1]);
      entry.offset = std::stoll(match[2]);
    } else if (!line.empty() && line[0] != '#') {
      entry.uri = line;
      entries.push_back(entry);
      entry = {};
    }
  }
  return entries;
}

// A TS segment's Media Initialization Section: its packets before the first one on `pid`.
std::string ts_tables(const std::string& segment, int pid) {
  size_t at = 0;
  while (at + kTsPacket <= segment.size() && ts_pid(segment, at) != pid) at += kTsPacket;
  return segment.substr(0, at);
}

nlohmann::json probe(const std::string& path, const std::string& what) {
  return nlohmann::json::parse(ffprobe_json({"-select_streams", "v:0", "-show_entries", what,
                                             path}))[what.substr(0, what.find('=')) + "s"];
}

// The presentation times of `path`'s key packets, in order.
std::vector<double> key_times(const std::string& path) {
  std::vector<double> times;
  for (const auto& packet : probe(path, "packet=flags,pts_time"))
    if (packet["flags"].get<std::string>().find('K') != std::string::npos)
      times.push_back(std::stod(packet["pts_time"].get<std::string>()));
  std::sort(times.begin(), times.end());
  return times;
}

struct Layout {
  const char* name;
  std::vector<std::string> args;
  bool fmp4;
};

struct Rendition {
  std::string name;
  std::string size;  // "640x360"
};

// Checks the I-frame playlists of the package in `dir`/pkg: its renditions' tags in the master,
// each entry one keyframe of its segment, every keyframe of every segment listed (`keyframes`
// per rendition in all). `most_in_a_segment`: the most keyframes one segment holds.
void expect_iframe_playlists(const TempDir& dir, bool fmp4,
                             const std::vector<Rendition>& renditions, int keyframes_expected,
                             int& most_in_a_segment) {
  std::string master = read_file(dir / "pkg/master.m3u8");
  for (const Rendition& each : renditions) {
    const std::string& rendition = each.name;
    SCOPED_TRACE(rendition);
    std::string uri = rendition + "/iframes.m3u8";
    // RFC 8216 4.3.4.3: the tag's attributes, the URI quoted.
    std::smatch tag;
    ASSERT_TRUE(std::regex_search(
        master, tag,
        std::regex("#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=(\\d+),RESOLUTION=(\\d+x\\d+),"
                   "CODECS=\"([^\"]+)\",URI=\"" +
                   uri + "\"\n")))
        << master;
    EXPECT_EQ(tag[2], each.size);
    std::string codecs = stream_inf_for(master, rendition + "/index.m3u8")["CODECS"];
    EXPECT_EQ(codecs.substr(0, codecs.find(',')), tag[3]) << "the video's own codec";
    std::string playlist = read_file(dir / "pkg/" + uri);
    EXPECT_NE(playlist.find("\n#EXT-X-I-FRAMES-ONLY\n"), std::string::npos) << playlist;
    EXPECT_NE(playlist.find(fmp4 ? "#EXT-X-VERSION:7\n" : "#EXT-X-VERSION:4\n"), std::string::npos)
        << playlist;
    EXPECT_EQ(playlist.find("#EXT-X-MAP:URI=\"init.mp4\"\n") != std::string::npos, fmp4)
        << playlist;
    EXPECT_NE(playlist.find("#EXT-X-ENDLIST"), std::string::npos) << playlist;
    std::string init = fmp4 ? read_file(dir / "pkg/" + rendition + "/init.mp4") : "";
    std::map<std::string, std::vector<double>> entry_times;  // each entry's frame, per segment
    double listed = 0;
    int64_t bits = 0;
    for (const IFrameEntry& entry : iframe_entries(playlist)) {
      SCOPED_TRACE(entry.uri + " @" + std::to_string(entry.offset));
      listed += entry.seconds;
      bits += entry.length * 8;
      std::string segment = read_file(dir / "pkg/" + rendition + "/" + entry.uri);
      ASSERT_GT(entry.length, 0);
      ASSERT_LE(entry.offset + entry.length, int64_t(segment.size()));
      std::string range = segment.substr(size_t(entry.offset), size_t(entry.length));
      std::string head = init;
      if (!fmp4) {
        // RFC 8216 4.3.3.6: the range leaves the Media Initialization Section (PAT/PMT) out.
        ASSERT_EQ(range.size() % kTsPacket, 0u);
        EXPECT_NE(ts_pid(range, 0), 0) << "the range starts with the PAT";
        head = ts_tables(segment, ts_pid(range, 0));
        bool pat = false;  // after the SDT, which may come first
        for (size_t at = 0; at + kTsPacket <= head.size(); at += kTsPacket)
          pat = pat || ts_pid(head, at) == 0;
        EXPECT_TRUE(pat) << "the segment's tables before the keyframe hold its PAT";
      } else {
        EXPECT_EQ(range.substr(4, 4), "moof");
      }
      std::string alone = dir / "iframe.bin";
      std::ofstream(alone, std::ios::binary) << head << range;
      nlohmann::json frames = probe(alone, "frame=key_frame,pict_type,pts_time");
      ASSERT_EQ(frames.size(), 1u) << "frames decoded from the range";
      EXPECT_EQ(frames[0]["key_frame"], 1);
      EXPECT_EQ(frames[0]["pict_type"], "I");
      entry_times[entry.uri].push_back(std::stod(frames[0]["pts_time"].get<std::string>()));
    }
    // Every keyframe of every segment has its entry (the range decodes to the frame at its
    // time), and only those.
    double segments_s = 0;
    int keyframes = 0;
    for (const std::string& name : playlist_segments(dir / "pkg/" + rendition + "/index.m3u8")) {
      std::string path = dir / "pkg/" + rendition + "/" + name;
      if (fmp4) {
        std::ofstream(dir / "whole.mp4", std::ios::binary) << init << read_file(path);
        path = dir / "whole.mp4";
      }
      std::vector<double> keys = key_times(path);
      std::vector<double>& listed_keys = entry_times[name];
      std::sort(listed_keys.begin(), listed_keys.end());
      ASSERT_EQ(listed_keys.size(), keys.size()) << name;
      for (size_t k = 0; k < keys.size(); ++k) EXPECT_NEAR(listed_keys[k], keys[k], 0.001) << name;
      keyframes += int(keys.size());
      most_in_a_segment = std::max(most_in_a_segment, int(keys.size()));
    }
    std::istringstream media(read_file(dir / "pkg/" + rendition + "/index.m3u8"));
    for (std::string line; std::getline(media, line);)
      if (line.starts_with("#EXTINF:")) segments_s += std::stod(line.substr(8));
    EXPECT_EQ(keyframes, keyframes_expected);
    EXPECT_NEAR(listed, segments_s, 0.001) << "the entries last as long as the segments";
    EXPECT_GE(std::stoll(tag[1]), int64_t(bits / segments_s)) << "BANDWIDTH below the mean";
  }
}

class IFramePlaylists : public ::testing::TestWithParam<Layout> {};

TEST_P(IFramePlaylists, EachEntryIsOneKeyframeOfItsSegmentAndEveryKeyframeHasOne) {
  const Layout& layout = GetParam();
  TempDir dir;
  make_clip(dir / "in.mp4", {.width = 640, .height = 360, .fps = 30, .seconds = 7});
  std::vector<std::string> args{
      "run",  dir / "in.mp4", "--package-dir", dir / "pkg", "--segment", "2",      "-q",     "-o",
      "360p", "--size",       "640x360",       "-o",        "180p",      "--size", "320x180"};
  args.insert(args.end(), layout.args.begin(), layout.args.end());
  ProcessResult run = transcode(args);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // A 7 s clip in 2 s segments: a keyframe where each starts.
  int most = 0;
  expect_iframe_playlists(dir, layout.fmp4, {{"360p", "640x360"}, {"180p", "320x180"}}, 4, most);
}

// Keyframes between segment boundaries (corpus::burst_over_stated_rate: the GOP counted in the
// stated 25 fps ends inside the 50 fps burst's segments): each has its own entry, a range that
// decodes to that one key frame, beside the keyframe that starts its segment.
TEST_P(IFramePlaylists, KeyframesInsideASegmentEachHaveTheirEntry) {
  const Layout& layout = GetParam();
  TempDir dir;
  corpus::burst_over_stated_rate(dir / "burst.mp4");
  std::vector<std::string> args{
      "run",  dir / "burst.mp4", "--package-dir", dir / "pkg", "--segment", "2", "-q", "-o",
      "240p", "--size",          "320x240"};
  args.insert(args.end(), layout.args.begin(), layout.args.end());
  ProcessResult run = transcode(args);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // Segments from 0, 2 and 4 s; the burst's 100 frames of 2-4 s hold a second keyframe 50
  // frames in.
  int most = 0;
  expect_iframe_playlists(dir, layout.fmp4, {{"240p", "320x240"}}, 4, most);
  EXPECT_EQ(most, 2) << "a segment with a keyframe inside it";
}

INSTANTIATE_TEST_SUITE_P(
    Hls, IFramePlaylists,
    ::testing::Values(Layout{"Fmp4", {"--package", "hls"}, true},
                      Layout{"Ts", {"--package", "hls", "--segment-format", "ts"}, false},
                      Layout{"Cmaf", {"--package", "cmaf"}, true}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace tc::testing
