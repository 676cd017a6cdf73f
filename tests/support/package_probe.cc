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
                   "-show_entries", "packet=pts_time,duration_time,flags", path});
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

ProbedSegment probe_segment(const std::string& rendition_dir, const std::string& name,
                            const TempDir& scratch, const char* stream) {
  std::string joined = scratch / "joined.mp4";
  std::string media = read_file(rendition_dir + "/" + name);
  std::ofstream(joined, std::ios::binary) << read_file(rendition_dir + "/init.mp4") << media;
  nlohmann::json packets = ffprobe_packets(joined, stream);
  ProbedSegment segment;
  segment.bytes = int64_t(media.size());
  EXPECT_FALSE(packets.empty()) << name;
  if (packets.empty()) return segment;
  segment.starts_with_key = packets[0]["flags"].get<std::string>().find('K') == 0;
  segment.first_pts = 1e9;
  for (const auto& packet : packets) {
    double pts = std::stod(packet["pts_time"].get<std::string>());
    double duration = std::stod(packet.value("duration_time", std::string("0")));
    segment.first_pts = std::min(segment.first_pts, pts);
    segment.end = std::max(segment.end, pts + duration);
  }
  return segment;
}

std::vector<ProbedSegment> probe_rendition(const std::string& dir, const TempDir& scratch,
                                           const char* stream) {
  std::vector<ProbedSegment> segments;
  for (const std::string& name : playlist_segments(dir + "/index.m3u8"))
    segments.push_back(probe_segment(dir, name, scratch, stream));
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
