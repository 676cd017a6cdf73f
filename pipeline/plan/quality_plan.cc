#include "pipeline/plan/quality_plan.h"

namespace tc {

std::vector<Stage> quality_stages(const Plan& plan) {
  std::vector<Stage> stages;
  if (!plan.quality_metrics.any()) return stages;
  // The reference is scaled in software, so device frames come down to memory once per source
  // frame (shared by every output); each output is decoded again on the cpu.
  bool download = plan.decode.hw || plan.decode.upload;
  for (size_t k = 0; k < plan.outputs.size(); ++k) {
    if (plan.outputs[k].video_copy) continue;
    std::string label = "out" + std::to_string(k);
    std::string what = name_of(plan.quality_metrics) + " of " + label +
                       " (decoded again) against the source scaled bicubic on the cpu";
    if (download) what += "; every source frame downloaded from the device for it";
    stages.push_back({"measure " + label, what, {}});
  }
  return stages;
}

}  // namespace tc
