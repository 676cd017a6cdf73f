// A package's plan: the GOP from the segment duration and the source's frame rate, and the
// options that keep every rendition's keyframes where the segments start (forced by time, IDR,
// closed GOPs, no scene-cut keyframes) for each encoder we plan.
#pragma once

#include "pipeline/plan/plan.h"

namespace tc {

// Fills plan.package and each output's keyframe options (its mux stage then names the segments:
// plan/stages.h). The spec is valid.
void plan_package(const JobSpec& spec, const VideoInfo& video, Plan& plan);
// The keyframe options of one encoder (its KeyframeOptions, hw/backends.h), for segments of
// `gop` frames (`interval_us` long).
void plan_segment_keyframes(int gop, int64_t interval_us, VideoEncodePlan& video);

}  // namespace tc
