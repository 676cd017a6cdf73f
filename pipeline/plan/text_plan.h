// A package's subtitles: every text subtitle track the first output keeps becomes a WebVTT
// rendition (converted by FFmpeg's webvtt encoder, in that output's stage); bitmap subtitles
// cannot be WebVTT and are left out, and the stream list says why.
#pragma once

#include <string>
#include <vector>

#include "pipeline/plan/plan.h"

namespace tc {

namespace package {
// The whole-file WebVTT document in a text rendition's directory (DASH's; the ffmpeg command's).
inline constexpr const char* kWebVttDocument = "subs.vtt";
}  // namespace package

// Replaces what plan_streams planned for the package's outputs' subtitles (an MP4 file's) and
// their outcomes. The spec is normalized (normalize_package): the first output's --subtitles
// decides.
void plan_package_subtitles(const JobSpec& spec, const MediaInfo& media, Plan& plan);
// The --dry-run lines of the text renditions.
std::string describe_text_renditions(const Plan& plan);
// The ffmpeg CLI's nearest equivalent, for the --dry-run command: each track converted into one
// WebVTT document (the DASH one; the CLI cannot cut it by our video segments).
void add_text_rendition_args(const Plan& plan, std::vector<std::string>& args);

}  // namespace tc
