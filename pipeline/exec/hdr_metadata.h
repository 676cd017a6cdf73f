// HDR10 static metadata (mastering display colour volume, content light level) carried from the
// source to an output that keeps HDR: onto the output stream (the muxer writes mdcv / clli,
// Matroska's MasteringMetadata) and into encoders that do not read it from frames (libx265 in
// FFmpeg 5.1 writes SEI only from its master-display / max-cll parameters).
#pragma once

#include <string>

extern "C" {
#include <libavformat/avformat.h>
#include <libavutil/frame.h>
}

#include "pipeline/core/status.h"

namespace tc {

// The source's metadata: the first frame's (HEVC SEI, AV1 OBU) where it has it, else the input
// stream's (the container's boxes).
struct HdrMetadata {
  const uint8_t* mastering = nullptr;  // AVMasteringDisplayMetadata
  const uint8_t* light = nullptr;      // AVContentLightMetadata
  bool empty() const { return !mastering && !light; }
};
HdrMetadata hdr_metadata_of(const AVFrame& first, const AVStream& input);

// Adds it to the output stream's side data. Call after avcodec_parameters_from_context (which
// resets codecpar's side data from FFmpeg 6.1).
Status add_hdr_side_data(const HdrMetadata& metadata, AVStream& output);

// x265's parameters for it: "master-display=G(x,y)B(x,y)R(x,y)WP(x,y)L(max,min):max-cll=C,F";
// empty when there is none.
std::string x265_hdr_params(const HdrMetadata& metadata);

}  // namespace tc
