// HDR10 metadata in the plan: what the plan (and so --dry-run's ffmpeg command) can give libx265
// from what the source's container declares. Frames' own metadata (HEVC SEI) is read at run
// time (exec/hdr_metadata.h) for sources whose container declares none; both add parameters
// through plan/hdr_params.h.
#pragma once

#include "pipeline/plan/plan.h"

namespace tc {

// libx265 and libsvtav1 in FFmpeg 5.1 write the mastering display and content light metadata
// only from their parameters: adds the source's declared values to "x265-params" /
// "svtav1-params" where the output keeps HDR, and says so (hdr_params_declared).
void add_declared_hdr_params(const VideoInfo& source, VideoEncodePlan& video);

}  // namespace tc
