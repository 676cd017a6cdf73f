// A plan's stages, rendered from its parts (as FFmpeg's graphprint renders from its structs):
// demux, decode, any deinterlace / turn / upload, filter, then per output its download, encode
// and mux, then thumbnails and quality measures. The text is API (--dry-run, the JSON report,
// the daemon's stored jobs): every note comes from a typed fact of the plan (threads, chunks,
// the encoder's note), so fitting the plan to a machine changes facts, never text.
#pragma once

#include <string>
#include <vector>

#include "pipeline/plan/plan.h"

namespace tc {

std::vector<Stage> render_stages(const Plan& plan);

// "fmp4 segments (cmaf)", "mpeg-ts segments": a package's segments, as its mux stages and
// describe_package name them.
std::string segments_text(SegmentFormat format);

}  // namespace tc
