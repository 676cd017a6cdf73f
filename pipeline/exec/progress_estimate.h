// How far a job is and how long it has left, from its Progress: what the progress bar, the JSON
// progress lines of `transcode run|watch --progress json` and the daemon's Progress message
// (percent, eta_s) all show, computed in one place so they agree.
#pragma once

#include <algorithm>
#include <optional>

#include "pipeline/exec/report.h"

namespace tc {

// 0-100: the media done over the (trimmed) input's length. None when the length is unknown (a
// live stream, a pipe): a percentage of an unknown whole would be a guess.
inline std::optional<double> progress_percent(const Progress& progress) {
  if (!(progress.input_duration_s > 0)) return std::nullopt;
  return std::clamp(100.0 * progress.media_time_s / progress.input_duration_s, 0.0, 100.0);
}

// Seconds left: the media not yet done over the job's rate so far (media seconds per wall
// second). None without a known length or before the job has a rate.
inline std::optional<double> progress_eta_s(const Progress& progress) {
  if (!progress_percent(progress) || !(progress.speed > 0)) return std::nullopt;
  return std::max(0.0, progress.input_duration_s - progress.media_time_s) / progress.speed;
}

}  // namespace tc
