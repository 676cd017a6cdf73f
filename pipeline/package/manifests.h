// The package's manifests, from what the segmenters measured (never parsed back from files):
// the HLS master and media playlists (VOD; fMP4 with EXT-X-MAP, or MPEG-TS segments) and a
// static DASH MPD with a SegmentTimeline of the measured durations. Pure functions of the
// measures.
#pragma once

#include <string>
#include <vector>

#include "pipeline/package/segmenter.h"
#include "pipeline/package/text_rendition.h"

namespace tc::package {

struct PackageMeasure {
  std::vector<TrackMeasure> video;  // one per rendition, in output order
  std::vector<TrackMeasure> audio;  // one per kept audio track
  std::vector<TextMeasure> text;    // one per kept text subtitle track (WebVTT)
  std::string segment_name;         // "seg_{n}"
  SegmentFormat segment_format = SegmentFormat::kFmp4;
};

inline constexpr const char* kHlsMaster = "master.m3u8";
inline constexpr const char* kHlsMediaPlaylist = "index.m3u8";  // in each rendition's directory
inline constexpr const char* kDashManifest = "manifest.mpd";

std::string hls_master(const PackageMeasure& package);
// Where the DASH period starts, in microseconds of the source's timeline: the package's first
// content, the earliest track's first frame or first audio sample past the encoder's priming. A
// track that starts later (a capture's video after its audio) starts that much into the period.
int64_t presentation_start_us(const PackageMeasure& package);
// One EXT-X-TARGETDURATION for every media playlist of a package (video and audio): the longest
// segment of any track, rounded.
long hls_target_duration(const PackageMeasure& package);
std::string hls_media_playlist(const TrackMeasure& track, const std::string& segment_name,
                               long target);
std::string dash_mpd(const PackageMeasure& package);
// A text rendition's HLS media playlist: a WebVTT segment per video segment, of its duration.
// `target` is the package's EXT-X-TARGETDURATION (hls_target_duration): every media playlist of
// a package states the same one, as the audio and video ones do (never below its own longest).
std::string hls_subtitle_playlist(const std::vector<SegmentRange>& segments,
                                  const std::string& segment_name, long target);
// A rendition's bandwidth in HLS: its video and the audio played with it.
int64_t hls_peak_bandwidth(const PackageMeasure& package, const TrackMeasure& video);

}  // namespace tc::package
