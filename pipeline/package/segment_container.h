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
  // The 90 kHz timestamp media time 0 has in the segments (a WebVTT segment's
  // X-TIMESTAMP-MAP): 0 in fMP4, the mpegts muxer's 1.4 s start in TS.
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
// Before the first packet of each segment: a TS segment starts with its own PAT and PMT.
int begin_segment(const SegmentContainer& container, AVFormatContext& muxer);

}  // namespace tc::package
