// A video rendition's I-frame playlist (RFC 8216 4.3.3.6 EXT-X-I-FRAMES-ONLY, 4.3.4.3
// EXT-X-I-FRAME-STREAM-INF): every keyframe as a byte range of its segment file, for trick play
// (scrubbing thumbnails, fast forward) without fetching whole segments. From what the segmenter
// measured of the written files (segmenter.h's KeyframeMeasure); pure functions of the measure.
#pragma once

#include <string>
#include <vector>

#include "pipeline/package/segmenter.h"

namespace tc::package {

inline constexpr const char* kHlsIFramePlaylist = "iframes.m3u8";  // beside index.m3u8

// One I-frame segment: a keyframe, shown from its pts until the next keyframe's (the last until
// the track's end: RFC 8216 4.3.3.6), in the file of media segment `segment` (1-based).
struct IFrameSegment {
  int64_t pts = 0;
  int64_t duration = 0;
  int segment = 0;
  ByteRange range;
};

std::vector<IFrameSegment> iframe_segments(const TrackMeasure& video);
// The playlist: fMP4 names the init segment with EXT-X-MAP; a TS segment begins with its own
// PAT/PMT (its Media Initialization Section), which the ranges leave out.
std::string hls_iframe_playlist(const TrackMeasure& video, const std::string& segment_name);
// EXT-X-I-FRAME-STREAM-INF's BANDWIDTH: RFC 8216 4.3.4.2's peak segment bit rate over the
// I-frame segments.
int64_t iframe_peak_bitrate(const TrackMeasure& video);

}  // namespace tc::package
