// Where a keyframe lies in the segment file the muxer wrote: RFC 8216 4.3.3.6's I-frame segment,
// a byte range that a player fetches alone (after the Media Initialization Section) to show
// that one picture. Read from the bytes as written, so the ranges are the file's, whatever the
// muxer put around the packet (AUDs, parameter sets, PCR, PAT/PMT).
#pragma once

#include <cstdint>
#include <string_view>

namespace tc::package {

struct ByteRange {
  int64_t offset = 0;
  int64_t length = 0;
};

// fMP4: `fragment` starts at a moof whose first sample is the keyframe (the segmenter starts a
// fragment at every keyframe). The range runs from the moof to the end of that sample in the
// mdat (the moof locates it: trun's data_offset from the moof, default-base-is-moof), so that
// the moof comes with it. 0 where the bytes are not such a fragment.
int64_t fmp4_keyframe_length(std::string_view fragment);

// MPEG-TS: `packets` are what writing the keyframe added (188-byte packets). The keyframe's PES
// is carried on the PID of the last packet; the PAT/PMT/SDT written before it belong to the
// segment's Media Initialization Section, which RFC 8216 keeps out of an I-frame's range. The
// range within `packets` of the PES's packets; {0, 0} if there are none.
ByteRange ts_keyframe_range(std::string_view packets);

}  // namespace tc::package
