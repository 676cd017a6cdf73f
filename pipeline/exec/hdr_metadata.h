// HDR10 static metadata (mastering display colour volume, content light level) carried from the
// source to an output that keeps HDR: onto the output stream (the muxer writes mdcv / clli,
// Matroska's MasteringMetadata) and into encoders that do not read it from frames (libx265 in
// FFmpeg 5.1 writes SEI only from its master-display / max-cll parameters).
#pragma once

extern "C" {
#include <libavformat/avformat.h>
#include <libavutil/frame.h>
#include <libavutil/mastering_display_metadata.h>
}

#include "pipeline/core/status.h"
#include "pipeline/plan/hdr_params.h"

namespace tc {

// The source's metadata: the first frame's (HEVC SEI, AV1 OBU) where it has it, else the input
// stream's (the container's boxes).
HdrMetadata hdr_metadata_of(const AVFrame& first, const AVStream& input);

// Adds it to the output stream's side data. Call after avcodec_parameters_from_context (which
// resets codecpar's side data from FFmpeg 6.1).
Status add_hdr_side_data(const HdrMetadata& metadata, AVStream& output);

// tonemap_vaapi refuses a frame without mastering display metadata (FFmpeg 5.1: "No mastering
// display data from input"), and HEVC decoders attach the SEI's only to the frames near it.
// Gives every frame the last metadata seen: a frame's own, at first the container's, else the
// common HDR10 grading display (P3 primaries, D65, 0.0001-1000 cd/m2). A frame whose transfer is
// PQ or HLG but whose primaries or matrix are unset gets BT.2020 for them, as the software path
// assumes (video_format.cc): tonemap_vaapi picks the VA colour standard from the three tags
// (vaapi_vpp.c), and with the transfer alone it matches none, leaving the driver to guess.
class MasteringDisplayFill {
 public:
  explicit MasteringDisplayFill(const AVStream& input);
  Status fill(AVFrame& frame);

 private:
  AVMasteringDisplayMetadata last_{};
};

}  // namespace tc
