#include "pipeline/package/iframe_playlist.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "pipeline/plan/segment_container.h"

namespace tc::package {
namespace {

// EXT-X-I-FRAMES-ONLY and EXT-X-BYTERANGE need version 4; EXT-X-MAP in an I-frame playlist 5;
// fMP4 playlists say 7 as the media playlists do.
int iframe_playlist_version(SegmentFormat format) {
  return format == SegmentFormat::kTs ? 4 : 7;
}

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6f", seconds);
  return text;
}

}  // namespace

std::vector<IFrameSegment> iframe_segments(const TrackMeasure& video) {
  std::vector<IFrameSegment> iframes;
  for (size_t i = 0; i < video.segments.size(); ++i)
    for (const KeyframeMeasure& keyframe : video.segments[i].keyframes) {
      if (!iframes.empty()) iframes.back().duration = keyframe.pts - iframes.back().pts;
      iframes.push_back({keyframe.pts, 0, int(i) + 1, keyframe.range});
    }
  if (!iframes.empty()) {
    const SegmentMeasure& last = video.segments.back();
    iframes.back().duration = std::max<int64_t>(last.start + last.duration - iframes.back().pts, 0);
  }
  return iframes;
}

std::string hls_iframe_playlist(const TrackMeasure& video, const std::string& segment_name) {
  const SegmentContainer& container = segment_container(video.format);
  std::vector<IFrameSegment> iframes = iframe_segments(video);
  long target = 1;
  for (const IFrameSegment& iframe : iframes)
    target = std::max(target, std::lround(video.seconds(iframe.duration)));
  std::ostringstream m3u8;
  m3u8 << "#EXTM3U\n#EXT-X-VERSION:" << iframe_playlist_version(video.format)
       << "\n#EXT-X-TARGETDURATION:" << target
       << "\n#EXT-X-MEDIA-SEQUENCE:1\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-I-FRAMES-ONLY\n";
  if (container.has_init()) m3u8 << "#EXT-X-MAP:URI=\"" << container.init_name << "\"\n";
  for (const IFrameSegment& iframe : iframes)
    m3u8 << "#EXTINF:" << seconds_text(video.seconds(iframe.duration))
         << ",\n#EXT-X-BYTERANGE:" << iframe.range.length << "@" << iframe.range.offset << "\n"
         << segment_file(container, segment_name, iframe.segment) << "\n";
  m3u8 << "#EXT-X-ENDLIST\n";
  return m3u8.str();
}

int64_t iframe_peak_bitrate(const TrackMeasure& video) {
  TrackMeasure iframes;
  iframes.time_base = video.time_base;
  for (const IFrameSegment& iframe : iframe_segments(video)) {
    SegmentMeasure segment;
    segment.start = iframe.pts;
    segment.duration = iframe.duration;
    segment.bytes = iframe.range.length;
    iframes.segments.push_back(std::move(segment));
  }
  return iframes.peak_bitrate();
}

}  // namespace tc::package
