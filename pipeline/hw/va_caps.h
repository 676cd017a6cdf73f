// The pure parts of VA-API discovery, apart from the libva and libdrm calls so that tests can feed
// them fixtures (profile lists of real GPUs, vendor strings, errno values) without an Intel GPU.
// Internal to pipeline/hw: the planner reads HwDevice, never these.
#pragma once

#include <string>
#include <vector>

#include <va/va.h>

#include "pipeline/hw/devices.h"

namespace tc {

// One answer of vaQueryConfigEntrypoints: a VAProfile and its VAEntrypoint values, kept as ints
// so that fixtures can also hold profiles this libva's headers do not know.
struct VaProfileEntrypoints {
  int profile = VAProfileNone;
  std::vector<int> entrypoints;
};

// Adds what the profiles say to device: VLD -> decode (highest bit depth per codec), EncSlice ->
// encode full, EncSliceLP -> encode low_power, VideoProc on VAProfileNone -> can_scale.
// Profiles that map to no codec we handle (JPEG, 4:4:4, ...) are ignored.
void apply_va_caps(const std::vector<VaProfileEntrypoints>& profiles, HwDevice& device);

// Why a VA-API driver, named by its vendor string, cannot serve an Intel node: an emulation layer
// or Mesa's Gallium driver. Empty when it can.
std::string va_vendor_rejection(const std::string& vendor);

// The unusable_reason for a render node that open() refused with errno_value.
std::string render_node_open_error(const std::string& path, int errno_value);

}  // namespace tc
