// An output's frame rate: `--fps N` or `N/D` (JSON and OutputConfig: "fps": "30000/1001").
// Frames are dropped or repeated to it by libavfilter's fps filter (plan/graphs.cc).
#pragma once

#include <string>
#include <string_view>

#include "pipeline/core/status.h"
#include "pipeline/spec/job_spec.h"

namespace tc {

// The highest rate an output may ask for: past it a rate is a typo (no player shows more).
inline constexpr int kMaxFrameRate = 1000;

// "25", "30000/1001" -> the rate; kInvalidArgument for anything else, 0, or more than
// kMaxFrameRate frames a second.
Result<FrameRate> parse_frame_rate(std::string_view text);
// "25", "30000/1001": what parse_frame_rate reads back.
std::string frame_rate_text(const FrameRate& rate);
// Unset (num 0), or a rate parse_frame_rate would give; else kInvalidArgument naming `field`.
Status validate_frame_rate(const FrameRate& rate, const std::string& field);

}  // namespace tc
