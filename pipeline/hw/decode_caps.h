// Whether a device decodes a given stream (and encodes a given size): codec, profile, chroma, bit
// depth and size against what discovery (or the Intel profile table) recorded. The one
// decode-capability decision; the planner falls back to software decode + upload with the reason
// this gives.
#pragma once

#include <string>

#include "pipeline/hw/devices.h"
#include "pipeline/probe/media_info.h"

namespace tc {

// Chroma of a pixel format as 420, 422 or 444 (4:0:0 and unknown count as 420).
int chroma_of(AVPixelFormat format);

// Why `device` cannot decode `video` into device frames; empty when it can.
std::string decode_refusal(const HwDevice& device, const VideoInfo& video);

// Why `device` cannot encode `codec` at width x height; empty when it can.
std::string encode_refusal(const HwDevice& device, AVCodecID codec, int width, int height);

}  // namespace tc
