// Which backend and device a job runs on: the one decision, used by the planner (make_plan)
// and by the daemon's scheduler, so a job takes a slot on the device it will really run on.
#pragma once

#include <functional>
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

// How many of a job's stages a device would run itself (decode, each output's encode); the
// planner's, for ranking the nodes `auto` may pick.
using StagesOnDevice = std::function<int(const HwDevice&)>;

// `auto` takes the usable device, of the backends `auto` may pick, that can also scale and keeps
// the most stages on itself (`stages`; the first of equals, and the first where `stages` is
// empty: an Arc beside an iGPU is taken where it decodes what the iGPU cannot); else software.
// A named backend without a usable device that can scale is a kDevice error that says why, and
// that auto would fall back.
Result<BackendChoice> choose_backend(BackendKind requested, const std::string& device_path,
                                     const HwInventory& devices, const StagesOnDevice& stages = {});

}  // namespace tc
