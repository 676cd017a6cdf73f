// A JobSpec's package: what its outputs become when they are renditions of an HLS/DASH package
// rather than files, and what a package can carry.
#pragma once

#include "pipeline/core/status.h"
#include "pipeline/spec/job_spec.h"

namespace tc {

// The longest segment a package may ask for: players buffer several, and a typo of 400 for
// 4 would otherwise make one segment of the whole file.
inline constexpr double kMaxSegmentSeconds = 60;

// A package's renditions are fragmented MP4 with their own audio rendition group: the first
// output carries the audio tracks (AAC) and the subtitles (text ones become WebVTT renditions),
// the others none. No-op without a package. Idempotent.
void normalize_package(JobSpec& spec);
// Segment duration, directory, rendition names and codecs (kInvalidArgument naming the field).
Status validate_package(const JobSpec& spec);
// "seg_{n}" with n = 7 -> "seg_00007".
std::string segment_file_name(const std::string& name_template, int number);

}  // namespace tc
