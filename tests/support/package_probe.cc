#include "tests/support/package_probe.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

namespace tc::testing {

std::vector<std::string> playlist_segments(const std::string& playlist) {
  std::vector<std::string> names;
  std::istringstream lines(read_file(playlist));
  for (std::string line; std::getline(lines, line);)
    if (!line.empty() && line[0] != '#') names.push_back(line);
  return names;
}

std::string ffprobe_json(const std::vector<std::string>& args) {
  std::vector<std::string> argv{"ffprobe", "-v", "error", "-of", "json"};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessResult run = run_process(argv);
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return run.out;
}

int ts_pid(const std::string& bytes, size_t at) {
  return ((static_cast<unsigned char>(bytes[at + 1]) & 0x1f) << 8) |
         static_cast<unsigned char>(bytes[at + 2]);
}

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
  std::vector<double> seconds;
  double longest = 0, total = 0;
  int64_t bytes = 0;
  for (size_t i = 0; i < segments.size(); ++i) {
    seconds.push_back(i + 1 < segments.size() ? segments[i + 1].first_pts - segments[i].first_pts
                                              : segments[i].end - segments[i].first_pts);
    longest = std::max(longest, seconds.back());
    total += seconds.back();
    bytes += segments[i].bytes;
  }
  double target = std::max(1.0, std::round(longest));
  double peak = 0;
  for (size_t first = 0; first < segments.size(); ++first) {
    double run = 0, bits = 0;
    for (size_t last = first; last < segments.size() && run <= 1.5 * target; ++last) {
      run += seconds[last];
      bits += segments[last].bytes * 8.0;
      if (run >= 0.5 * target && run <= 1.5 * target) peak = std::max(peak, bits / run);
    }
  }
  return int64_t(peak > 0 ? peak : total > 0 ? bytes * 8 / total : 0);
}

namespace {

// RFC 6381 for what ffprobe says of an H.264 stream: avc1.PP..LL (constraint flags not shown).
std::string avc1_prefix(const std::string& profile) {
  return profile == "High" ? "avc1.64" : profile == "Main" ? "avc1.4d" : "avc1.42";
}

// A file ffprobe reads the rendition's codec parameters and first samples from: the first
// segment, after the init segment when there is one (an init segment alone has no samples to
// read the profile from).
std::string first_segment(const std::string& dir, const TempDir& scratch) {
  std::string first = dir + "/" + playlist_segments(dir + "/index.m3u8").at(0);
  if (!file_exists(dir + "/init.mp4")) return first;
  std::string joined = scratch / "first.mp4";
  std::ofstream(joined, std::ios::binary) << read_file(dir + "/init.mp4") << read_file(first);
  return joined;
}

nlohmann::json ffprobe_packets(const std::string& path, const char* stream) {
  ProcessResult run =
      run_process({"ffprobe", "-v", "error", "-of", "json", "-select_streams", stream,
                   "-show_entries", "packet=pts_time,duration_time,flags,pos", path});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return nlohmann::json::parse(run.out, nullptr, false).value("packets", nlohmann::json::array());
}

// A rendition of MPEG-TS segments (no init segment: no EXT-X-MAP): each segment probed alone,
// as a player may start at any of them; TS timestamps are absolute, so they are read directly.
std::vector<ProbedSegment> probe_ts_rendition(const std::string& dir, const char* stream) {
  std::vector<ProbedSegment> segments;
  for (const std::string& name : playlist_segments(dir + "/index.m3u8")) {
    ProbedSegment segment;
    segment.bytes = int64_t(read_file(dir + "/" + name).size());
    segment.first_pts = 1e9;
    nlohmann::json packets = ffprobe_packets(dir + "/" + name, stream);
    EXPECT_FALSE(packets.empty()) << dir << "/" << name;
    for (const auto& packet : packets) {
      double pts = std::stod(packet["pts_time"].get<std::string>());
      double duration = std::stod(packet.value("duration_time", std::string("0")));
      if (&packet == &packets.front())
        segment.starts_with_key = packet["flags"].get<std::string>().find('K') == 0;
      segment.first_pts = std::min(segment.first_pts, pts);
      segment.end = std::max(segment.end, pts + duration);
    }
    segments.push_back(segment);
  }
  return segments;
}

}  // namespace

// The rendition as a player reads it: the init segment, then every media segment in order,
// probed as one file, each packet given to the segment its bytes are in. Probing a segment alone
// (init + that segment) is not the same: FFmpeg's mov demuxer then re-bases the fragment's
// timestamps on its own first composition offsets, so a segment whose frame types differ
// (libx264's B-frame choices vary with its threads) reads a frame earlier or later than its
// decode time (tfdt) says, which is what players use.
std::vector<ProbedSegment> probe_rendition(const std::string& dir, const TempDir& scratch,
                                           const char* stream) {
  if (read_file(dir + "/index.m3u8").find("#EXT-X-MAP") == std::string::npos)
    return probe_ts_rendition(dir, stream);
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

void expect_manifest_figures(const std::string& package_dir,
                             const std::vector<std::string>& renditions, const TempDir& scratch) {
  std::string master = read_file(package_dir + "/master.m3u8");
  int64_t audio_peak = peak_bitrate(probe_rendition(package_dir + "/audio_1", scratch, "a:0"));
  for (const std::string& name : renditions) {
    std::map<std::string, std::string> inf = stream_inf_for(master, name + "/index.m3u8");
    ASSERT_FALSE(inf.empty()) << master;
    int64_t peak = peak_bitrate(probe_rendition(package_dir + "/" + name, scratch)) + audio_peak;
    EXPECT_NEAR(std::stod(inf["BANDWIDTH"]), double(peak), peak * 0.05) << name;
    nlohmann::json stream = nlohmann::json::parse(ffprobe_json(
        {"-select_streams", "v:0", "-show_entries", "stream=profile,level,width,height",
         first_segment(package_dir + "/" + name, scratch)}))["streams"][0];
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

}  // namespace tc::testing
