// Frames that must be in memory: a software encoder's, and --quality's references.
#pragma once

#include <string>

#include "pipeline/core/av.h"
#include "pipeline/core/status.h"

namespace tc {

// `frame`'s pixels in memory: a new reference when they are there, else downloaded from its
// device in its frames context's software format (what the graph's "hwdownload,format=%F" gives),
// with its properties (timestamps, picture type, colour, side data). `what` names the download
// in its error, a device's (Code::kDevice).
Result<av::FramePtr> frame_in_memory(const AVFrame& frame, const std::string& what);

}  // namespace tc
