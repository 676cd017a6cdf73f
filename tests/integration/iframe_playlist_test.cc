// I-frame playlists (RFC 8216 4.3.3.6, 4.3.4.3) in HLS packages, fMP4 and MPEG-TS: the master
// names one per video rendition (EXT-X-I-FRAME-STREAM-INF with BANDWIDTH, RESOLUTION, CODECS,
// URI), and every entry's byte range, cut out of its segment (after the init segment, or a TS
// segment's own PAT/PMT), is decoded by ffprobe as exactly one key frame; the entries are the
// segments' keyframes, all of them. Checked with ffprobe and the bytes, never our report.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

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

int key_packets(const std::string& path) {
  int keys = 0;
  for (const auto& packet : probe(path, "packet=flags"))
    if (packet["flags"].get<std::string>().find('K') != std::string::npos) ++keys;
  return keys;
}

struct Layout {
  const char* name;
  std::vector<std::string> args;
  bool fmp4;
};

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
  std::string master = read_file(dir / "pkg/master.m3u8");
  for (const char* name : {"360p", "180p"}) {
    std::string rendition = name;
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
    EXPECT_EQ(tag[2], rendition == "360p" ? "640x360" : "320x180");
    std::string codecs = stream_inf_for(master, rendition + "/index.m3u8")["CODECS"];
    EXPECT_EQ(codecs.substr(0, codecs.find(',')), tag[3]) << "the video's own codec";
    std::string playlist = read_file(dir / "pkg/" + uri);
    EXPECT_NE(playlist.find("\n#EXT-X-I-FRAMES-ONLY\n"), std::string::npos) << playlist;
    EXPECT_NE(playlist.find(layout.fmp4 ? "#EXT-X-VERSION:7\n" : "#EXT-X-VERSION:4\n"),
              std::string::npos)
        << playlist;
    EXPECT_EQ(playlist.find("#EXT-X-MAP:URI=\"init.mp4\"\n") != std::string::npos, layout.fmp4)
        << playlist;
    EXPECT_NE(playlist.find("#EXT-X-ENDLIST"), std::string::npos) << playlist;
    std::string init = layout.fmp4 ? read_file(dir / "pkg/" + rendition + "/init.mp4") : "";
    std::map<std::string, int> entries_per_segment;
    double listed = 0;
    int64_t bits = 0;
    for (const IFrameEntry& entry : iframe_entries(playlist)) {
      SCOPED_TRACE(entry.uri + " @" + std::to_string(entry.offset));
      ++entries_per_segment[entry.uri];
      listed += entry.seconds;
      bits += entry.length * 8;
      std::string segment = read_file(dir / "pkg/" + rendition + "/" + entry.uri);
      ASSERT_GT(entry.length, 0);
      ASSERT_LE(entry.offset + entry.length, int64_t(segment.size()));
      std::string range = segment.substr(size_t(entry.offset), size_t(entry.length));
      std::string head = init;
      if (!layout.fmp4) {
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
      nlohmann::json frames = probe(alone, "frame=key_frame,pict_type");
      ASSERT_EQ(frames.size(), 1u) << "frames decoded from the range";
      EXPECT_EQ(frames[0]["key_frame"], 1);
      EXPECT_EQ(frames[0]["pict_type"], "I");
    }
    // Every keyframe of every segment has its entry, and only those.
    double segments_s = 0;
    int keyframes = 0;
    for (const std::string& name : playlist_segments(dir / "pkg/" + rendition + "/index.m3u8")) {
      std::string path = dir / "pkg/" + rendition + "/" + name;
      if (layout.fmp4) {
        std::ofstream(dir / "whole.mp4", std::ios::binary) << init << read_file(path);
        path = dir / "whole.mp4";
      }
      int keys = key_packets(path);
      keyframes += keys;
      EXPECT_EQ(entries_per_segment[name], keys) << name;
    }
    std::istringstream media(read_file(dir / "pkg/" + rendition + "/index.m3u8"));
    for (std::string line; std::getline(media, line);)
      if (line.starts_with("#EXTINF:")) segments_s += std::stod(line.substr(8));
    EXPECT_EQ(keyframes, 4) << "a 7 s clip in 2 s segments";
    EXPECT_NEAR(listed, segments_s, 0.001) << "the entries last as long as the segments";
    EXPECT_GE(std::stoll(tag[1]), int64_t(bits / segments_s)) << "BANDWIDTH below the mean";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Hls, IFramePlaylists,
    ::testing::Values(Layout{"Fmp4", {"--package", "hls"}, true},
                      Layout{"Ts", {"--package", "hls", "--segment-format", "ts"}, false},
                      Layout{"Cmaf", {"--package", "cmaf"}, true}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace tc::testing
