// Which backend and device a job runs on: the one decision, used by the planner (make_plan)
// and by the daemon's scheduler, so a job takes a slot on the device it will really run on.
#pragma once

#include <string>

#include "pipeline/core/status.h"
#include "pipeline/hw/devices.h"
#include "pipeline/spec/job_spec.h"

namespace tc {

struct BackendChoice {
  BackendKind kind = BackendKind::kSoftware;
  const HwDevice* device = nullptr;  // into the inventory; null for software
  std::string reason;                // "requested", "auto: Intel GPU /dev/dri/renderD128 (i915)"
};

// `auto` takes the first usable device, of the backends `auto` may pick, that can also scale;
// else software. A named backend without a usable device that can scale is a kDevice error
// that says why, and that auto would fall back.
Result<BackendChoice> choose_backend(BackendKind requested, const std::string& device_path,
                                     const HwInventory& devices);

}  // namespace tc
