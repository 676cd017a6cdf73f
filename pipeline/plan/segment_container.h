// What differs between a package's two kinds of media segments: CMAF fMP4 (an init segment,
// then moof + mdat fragments, FFmpeg's mp4 muxer) and MPEG-TS for old HLS clients (no init
// segment: every segment carries its own PAT/PMT and starts with an IDR and its parameter sets,
// FFmpeg's mpegts muxer). Either way one muxer per rendition writes every segment, so the TS
// continuity counters and timestamps run on across segments.
#pragma once

#include <string>

extern "C" {
#include <libavformat/avformat.h>
}

#include "pipeline/spec/job_spec.h"

namespace tc::package {

struct SegmentContainer {
  SegmentFormat format = SegmentFormat::kFmp4;
  const char* muxer = "";      // FFmpeg's: "mp4", "mpegts"
  const char* init_name = "";  // "init.mp4"; empty: the segments stand alone
  const char* extension = "";  // a media segment's: ".m4s", ".ts"
  // The 90 kHz timestamp the source's time 0 has in the segments (a WebVTT segment's
  // X-TIMESTAMP-MAP): 1.4 s in both. The mpegts muxer adds it itself (its start, as the ffmpeg
  // CLI's TS files); for fMP4 the segmenter adds it (media_shift), so that every track of a
  // package keeps the source's times on one timeline and AAC's priming and B-frames' decode
  // times, which fall before a source's start, stay positive.
  int64_t media_zero_90khz = 0;
  bool has_init() const { return *init_name != '\0'; }
};

const SegmentContainer& segment_container(SegmentFormat format);
// "seg_{n}" and 7 -> "seg_00007.ts".
std::string segment_file(const SegmentContainer& container, const std::string& name_template,
                         int number);
// Sets up `muxer` (its one stream added) before its header is written: the options the header
// is written with go into `options`.
void prepare_muxer(const SegmentContainer& container, AVFormatContext& muxer,
                   AVDictionary** options);
// What the segmenter adds to every timestamp, in `time_base`: media_zero in fMP4, 0 in TS (the
// muxer adds it).
int64_t media_shift(const SegmentContainer& container, AVRational time_base);
// Before the first packet of each segment: a TS segment starts with its own PAT and PMT.
int begin_segment(const SegmentContainer& container, AVFormatContext& muxer);

}  // namespace tc::package
