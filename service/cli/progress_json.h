// `--progress json` of `transcode run` and `transcode watch`: a JSON object a line on stdout while
// the job runs, for programs (as `ffmpeg -progress` and `HandBrakeCLI --json` give them), then
// the final report as one more line. The default, `bar`, is the progress bar on a terminal.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "pipeline/core/status.h"
#include "pipeline/exec/report.h"

namespace tc::cli {

enum class ProgressMode { kBar, kJson };

// "bar|json": the option's value label, which completion offers the words of.
std::string progress_mode_label();
// kInvalidArgument naming the choices for any other.
Result<ProgressMode> parse_progress_mode(std::string_view name);

// {"state":"running","frames":N,"fps":F,"media_time_s":T,"percent":P,"eta_s":E}: percent and
// eta_s null when unknown (an input of unknown length, no rate yet). A job that succeeded says
// percent 100 and eta_s 0 where the length is known: its last frame's time is one frame short
// of the length, yet all of it was done.
std::string progress_json_line(std::string_view state, const Progress& progress,
                               std::optional<double> percent, std::optional<double> eta_s);

}  // namespace tc::cli
