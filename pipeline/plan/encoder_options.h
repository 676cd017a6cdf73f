// An output's video encoder options: rate control and speed, for a hardware encoder from its
// backend's HwEncoderDesc, for a software encoder from what each library calls them.
#pragma once

#include <string>

#include "pipeline/core/status.h"

#include "pipeline/hw/backends.h"
#include "pipeline/hw/devices.h"
#include "pipeline/plan/plan.h"

namespace tc {

// Sets options, rates and `note` ("low_power"/"full" where the backend chooses) of `plan`. The
// entrypoint is the one that offers the job's rate-control mode (probed, or from the Intel
// profile table); kUnsupported, saying why and what to enable, when neither does, with
// `huc_seen` (the device's HuC state as read or assumed, devices.h) where VDEnc lacks CBR/VBR.
Status plan_hw_encoder_options(const OutputSpec& output, const HwEncoderDesc& encoder,
                               const EncodeEntrypoints& entrypoints, VideoEncodePlan& plan,
                               const std::string& huc_seen = {});
// The options of `encoder` (the software encoder of output.codec), and the rates.
void plan_software_encoder_options(const OutputSpec& output, const SwEncoderDesc& encoder,
                                   VideoEncodePlan& plan);

}  // namespace tc
