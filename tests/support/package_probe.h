// A package's segments as ffprobe reads them (never our own report): for the package tests here
// and on the GPU machine.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tests/support/media_tools.h"

namespace tc::testing {

// One media segment (its rendition's init segment before it).
struct ProbedSegment {
  double first_pts = 0;
  double end = 0;  // the last packet's pts + duration
  bool starts_with_key = false;
  int64_t bytes = 0;
};

// The segments of a rendition's media playlist (their names, in order).
std::vector<std::string> playlist_segments(const std::string& playlist);

// Every segment of the rendition in `dir` (its index.m3u8), in order, as a player reads them:
// one after the other after the init segment; MPEG-TS segments (no EXT-X-MAP) each alone.
std::vector<ProbedSegment> probe_rendition(const std::string& dir, const TempDir& scratch,
                                           const char* stream = "v:0");

// ffprobe -v error -of json ARGS: its output (a failure reported through gtest).
std::string ffprobe_json(const std::vector<std::string>& args);

// The PID of the MPEG-TS packet at byte `at` of `bytes`.
int ts_pid(const std::string& bytes, size_t at);

// The attributes of the master playlist's EXT-X-STREAM-INF for `uri` (the line before it):
// `KEY=value` or `KEY="value"`.
std::map<std::string, std::string> stream_inf_for(const std::string& master,
                                                  const std::string& uri);

// RFC 8216 4.3.4.2's peak segment bit rate: the highest bitrate of any run of consecutive
// segments lasting 0.5 to 1.5 target durations (the longest segment, rounded), each segment's
// seconds from its start to the next one's.
int64_t peak_bitrate(const std::vector<ProbedSegment>& segments);

// The master playlist's figures for each rendition against what ffprobe reads of its segments:
// BANDWIDTH within 5% of the video's plus the default audio's peak, CODECS (H.264 profile and
// level, mp4a.40.2) and RESOLUTION. Reports failures through gtest.
void expect_manifest_figures(const std::string& package_dir,
                             const std::vector<std::string>& renditions, const TempDir& scratch);

// Every rendition's segments start with a keyframe, at the same times (within half a frame);
// all but the last last `segment_s` within a frame. Reports failures through gtest.
void expect_aligned(const std::string& package_dir, const std::vector<std::string>& renditions,
                    double segment_s, double fps, const TempDir& scratch);

}  // namespace tc::testing
