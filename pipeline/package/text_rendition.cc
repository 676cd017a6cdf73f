#include "pipeline/package/text_rendition.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <limits>

extern "C" {
#include <libavutil/mathematics.h>
}

namespace tc::package {
namespace {

constexpr AVRational kMicroseconds{1, 1000000};

// The encoder's text as a cue payload: a blank line would end the cue early in every player
// (an ASS "\N\N" becomes one), and "-->" may not appear in a payload; trailing space is noise.
std::string cue_payload(const char* data, size_t size) {
  std::string text(data, size);
  for (size_t at; (at = text.find("-->")) != std::string::npos;) text.replace(at, 3, "--&gt;");
  std::string payload;
  size_t line_start = 0;
  while (line_start <= text.size()) {
    size_t end = text.find('\n', line_start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(line_start, end - line_start);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty()) payload += (payload.empty() ? "" : "\n") + line;
    line_start = end + 1;
  }
  return payload;
}

std::string cue_block(const Cue& cue) {
  return webvtt_time(cue.start_us) + " --> " + webvtt_time(cue.end_us) + "\n" + cue.text + "\n\n";
}

}  // namespace

Status TextRendition::add(const AVPacket& packet, AVRational time_base) {
  if (packet.pts == AV_NOPTS_VALUE) return Status::ok();
  std::string text = cue_payload(reinterpret_cast<const char*>(packet.data), size_t(packet.size));
  if (text.empty()) return Status::ok();  // nothing to show (an ASS drawing, a clear)
  Cue cue;
  cue.start_us = av_rescale_q(packet.pts, time_base, kMicroseconds);
  cue.end_us =
      cue.start_us + av_rescale_q(std::max<int64_t>(packet.duration, 0), time_base, kMicroseconds);
  cue.text = std::move(text);
  measure_.cues.push_back(std::move(cue));
  return Status::ok();
}

std::vector<SegmentRange> segment_ranges(const TrackMeasure& video) {
  std::vector<SegmentRange> ranges;
  const std::vector<SegmentMeasure>& segments = video.segments;
  for (size_t i = 0; i < segments.size(); ++i) {
    SegmentRange range;
    range.from_us = i == 0 ? std::numeric_limits<int64_t>::min()
                           : av_rescale_q(segments[i].start, video.time_base, kMicroseconds);
    range.to_us = i + 1 == segments.size()
                      ? std::numeric_limits<int64_t>::max()
                      : av_rescale_q(segments[i + 1].start, video.time_base, kMicroseconds);
    range.duration_us = av_rescale_q(segments[i].duration, video.time_base, kMicroseconds);
    ranges.push_back(range);
  }
  return ranges;
}

std::vector<Cue> cues_in(const std::vector<Cue>& cues, const SegmentRange& range) {
  std::vector<Cue> overlapping;
  for (const Cue& cue : cues)
    // A cue of no length still belongs to the segment it starts in.
    if (cue.start_us < range.to_us && std::max(cue.end_us, cue.start_us + 1) > range.from_us)
      overlapping.push_back(cue);
  return overlapping;
}

std::string webvtt_segment(const std::vector<Cue>& cues, int64_t media_zero_90khz) {
  std::string text = "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:" + std::to_string(media_zero_90khz) +
                     ",LOCAL:00:00:00.000\n\n";
  for (const Cue& cue : cues) text += cue_block(cue);
  return text;
}

std::string webvtt_document(const std::vector<Cue>& cues) {
  std::string text = "WEBVTT\n\n";
  for (const Cue& cue : cues) text += cue_block(cue);
  return text;
}

std::string webvtt_time(int64_t us) {
  int64_t ms = std::max<int64_t>(0, (us + 500) / 1000);
  char text[32];
  std::snprintf(text, sizeof text, "%02" PRId64 ":%02" PRId64 ":%02" PRId64 ".%03" PRId64,
                ms / 3600000, ms / 60000 % 60, ms / 1000 % 60, ms % 1000);
  return text;
}

}  // namespace tc::package
