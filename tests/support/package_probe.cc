#include "tests/support/package_probe.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace tc::testing {
namespace {

nlohmann::json ffprobe_packets(const std::string& path, const char* stream) {
  ProcessResult run =
      run_process({"ffprobe", "-v", "error", "-of", "json", "-select_streams", stream,
                   "-show_entries", "packet=pts_time,duration_time,flags,pos", path});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return nlohmann::json::parse(run.out, nullptr, false).value("packets", nlohmann::json::array());
}

}  // namespace

std::vector<std::string> playlist_segments(const std::string& playlist) {
  std::vector<std::string> names;
  std::istringstream lines(read_file(playlist));
  for (std::string line; std::getline(lines, line);)
    if (!line.empty() && line[0] != '#') names.push_back(line);
  return names;
}

// The rendition as a player reads it: the init segment, then every media segment in order,
// probed as one file, each packet given to the segment its bytes are in. Probing a segment alone
// (init + that segment) is not the same: FFmpeg's mov demuxer then re-bases the fragment's
// timestamps on its own first composition offsets, so a segment whose frame types differ
// (libx264's B-frame choices vary with its threads) reads a frame earlier or later than its
// decode time (tfdt) says, which is what players use.
std::vector<ProbedSegment> probe_rendition(const std::string& dir, const TempDir& scratch,
                                           const char* stream) {
  std::string joined = scratch / "joined.mp4";
  std::ofstream out(joined, std::ios::binary);
  std::string init = read_file(dir + "/init.mp4");
  out << init;
  std::vector<ProbedSegment> segments;
  std::vector<int64_t> ends;  // each segment's end, as a byte offset in the joined file
  int64_t offset = int64_t(init.size());
  for (const std::string& name : playlist_segments(dir + "/index.m3u8")) {
    std::string media = read_file(dir + "/" + name);
    out << media;
    offset += int64_t(media.size());
    ends.push_back(offset);
    ProbedSegment segment;
    segment.bytes = int64_t(media.size());
    segment.first_pts = 1e9;
    segments.push_back(segment);
  }
  out.close();
  std::vector<bool> seen(segments.size(), false);
  for (const auto& packet : ffprobe_packets(joined, stream)) {
    int64_t pos = std::stoll(packet.value("pos", std::string("-1")));
    size_t i = std::upper_bound(ends.begin(), ends.end(), pos) - ends.begin();
    if (pos < 0 || i >= segments.size()) continue;
    double pts = std::stod(packet["pts_time"].get<std::string>());
    double duration = std::stod(packet.value("duration_time", std::string("0")));
    ProbedSegment& segment = segments[i];
    if (!seen[i]) segment.starts_with_key = packet["flags"].get<std::string>().find('K') == 0;
    seen[i] = true;
    segment.first_pts = std::min(segment.first_pts, pts);
    segment.end = std::max(segment.end, pts + duration);
  }
  for (size_t i = 0; i < segments.size(); ++i) EXPECT_TRUE(seen[i]) << dir << " segment " << i + 1;
  return segments;
}

void expect_aligned(const std::string& package_dir, const std::vector<std::string>& renditions,
                    double segment_s, double fps, const TempDir& scratch) {
  std::vector<std::vector<ProbedSegment>> probed;
  for (const std::string& name : renditions)
    probed.push_back(probe_rendition(package_dir + "/" + name, scratch));
  ASSERT_FALSE(probed[0].empty());
  for (size_t r = 0; r < probed.size(); ++r) {
    ASSERT_EQ(probed[r].size(), probed[0].size()) << renditions[r];
    for (size_t i = 0; i < probed[r].size(); ++i) {
      EXPECT_TRUE(probed[r][i].starts_with_key) << renditions[r] << " segment " << i + 1;
      EXPECT_NEAR(probed[r][i].first_pts, probed[0][i].first_pts, 0.5 / fps)
          << renditions[r] << " segment " << i + 1;
      if (i + 1 < probed[r].size()) {
        EXPECT_NEAR(probed[r][i + 1].first_pts - probed[r][i].first_pts, segment_s, 1.0 / fps)
            << renditions[r] << " segment " << i + 1;
      }
    }
  }
}

}  // namespace tc::testing
