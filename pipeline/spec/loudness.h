// `--loudnorm` (JSON key "loudnorm"): EBU R128 loudness normalisation of an output's audio.
#pragma once

#include <string_view>

#include "pipeline/core/status.h"

namespace tc {

// kEbu: EBU R128 broadcast (-23 LUFS); kStreaming: what streaming services play at (-16 LUFS).
enum class Loudnorm { kOff, kEbu, kStreaming };

struct LoudnessTarget {
  double integrated_lufs = 0;  // I
  double range_lu = 0;         // LRA
  double true_peak_dbtp = 0;   // TP
};

LoudnessTarget loudness_target(Loudnorm loudnorm);  // kOff: all zero
Result<Loudnorm> parse_loudnorm(std::string_view name);
std::string_view name_of(Loudnorm loudnorm);

}  // namespace tc
