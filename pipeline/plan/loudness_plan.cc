#include "pipeline/plan/loudness_plan.h"

#include <cstdio>

namespace tc {

std::string loudnorm_filter(Loudnorm loudnorm, int sample_rate) {
  if (loudnorm == Loudnorm::kOff) return "";
  LoudnessTarget target = loudness_target(loudnorm);
  char text[160];
  std::snprintf(text, sizeof text, "loudnorm=I=%g:LRA=%g:TP=%g,aresample=%d",
                target.integrated_lufs, target.range_lu, target.true_peak_dbtp,
                sample_rate > 0 ? sample_rate : 48000);
  return text;
}

}  // namespace tc
