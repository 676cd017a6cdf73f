// A package as written, measured from its segments (not planned): what the package writer
// returns and a job's report carries (exec/report.h writes and reads its JSON).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tc {

// One rendition of a package as written.
struct RenditionReport {
  std::string name;  // its directory in the package: "720p", "audio_1"
  std::string type;  // "video", "audio", "subtitles" (WebVTT)
  int width = 0;
  int height = 0;
  std::string codec;  // RFC 6381
  std::string language;
  int64_t peak_bitrate = 0;  // the highest segment's, bits per second
  int64_t average_bitrate = 0;
  int64_t segments = 0;
  double duration_s = 0;
  // Every segment starts with a keyframe, at the same times as every other video rendition's.
  bool keyframes_aligned = false;
  int64_t cues = 0;  // subtitles: the cues written
  bool operator==(const RenditionReport&) const = default;
};

struct PackageReport {
  std::string kind;  // "hls", "dash", "cmaf"
  std::string dir;
  double segment_s = 0;
  std::vector<std::string> manifests;  // "master.m3u8", "manifest.mpd"
  std::vector<RenditionReport> renditions;
  bool keyframes_aligned = false;  // every video rendition's
  bool operator==(const PackageReport&) const = default;
};

}  // namespace tc
