// A text subtitle track of a package as a WebVTT rendition. FFmpeg's webvtt encoder (in the
// rendition's OutputStage) turns each decoded subtitle into a cue's text; the cues are kept
// here, in media time, and written once the video's segments are known: for HLS a WebVTT file
// per video segment holding the cues that overlap it (with X-TIMESTAMP-MAP, which places them on
// the fMP4 video's timeline) and a media playlist; for DASH one whole-file WebVTT document that
// the MPD names by BaseURL.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

extern "C" {
#include <libavcodec/packet.h>
}

#include "pipeline/core/status.h"
#include "pipeline/package/segmenter.h"
#include "pipeline/plan/text_plan.h"  // kWebVttDocument

namespace tc::package {

struct Cue {
  int64_t start_us = 0;  // media time of the package (after any trim)
  int64_t end_us = 0;
  std::string text;  // the webvtt encoder's payload, one line per displayed line
};

// A media segment's time range: cues overlapping it belong to it. The first range starts at
// the beginning of time and the last never ends, so that no cue falls outside every segment.
struct SegmentRange {
  int64_t from_us = 0;
  int64_t to_us = 0;
  int64_t duration_us = 0;  // the video segment's, for EXTINF
};

// A text rendition as written: what the manifests and the report say of it.
struct TextMeasure {
  std::string name;  // its directory: "subs_3"
  std::string language;
  std::string title;
  std::vector<Cue> cues;
  int64_t segments = 0;        // WebVTT segments written (HLS)
  int64_t document_bytes = 0;  // the whole-file WebVTT document's size (DASH)
  double duration_s = 0;       // the video's, that the cues are played with
  int disposition = 0;         // the source track's AV_DISPOSITION_* (forced, default, ...)
};

class TextRendition {
 public:
  TextRendition(std::string name, std::string language, std::string title, int disposition = 0) {
    measure_.name = std::move(name);
    measure_.language = std::move(language);
    measure_.title = std::move(title);
    measure_.disposition = disposition;
  }
  // A packet of FFmpeg's webvtt encoder: its data is a cue's text, its pts and duration (in
  // `time_base`) the cue's start and length.
  Status add(const AVPacket& packet, AVRational time_base);
  TextMeasure& measure() { return measure_; }
  const TextMeasure& measure() const { return measure_; }

 private:
  TextMeasure measure_;
};

// The time ranges of the video's segments (the first rendition's: the others' start together).
std::vector<SegmentRange> segment_ranges(const TrackMeasure& video);
// The cues of `cues` that overlap `range`, in order.
std::vector<Cue> cues_in(const std::vector<Cue>& cues, const SegmentRange& range);
// A WebVTT segment of an HLS rendition: the header, X-TIMESTAMP-MAP (media time 0 is at
// `media_zero_90khz` in the video's segments: 0 for fMP4, the TS muxer's start for TS), and the
// cues.
std::string webvtt_segment(const std::vector<Cue>& cues, int64_t media_zero_90khz);
// A whole WebVTT document (DASH): the header and every cue.
std::string webvtt_document(const std::vector<Cue>& cues);
// "00:01:02.345" (WebVTT's hours form, milliseconds rounded).
std::string webvtt_time(int64_t us);

}  // namespace tc::package
