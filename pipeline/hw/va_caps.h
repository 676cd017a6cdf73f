// The pure parts of VA-API discovery, apart from the libva and libdrm calls so that tests can feed
// them fixtures (profile lists of real GPUs, vendor strings, errno values) without an Intel GPU.
// Internal to pipeline/hw: the planner reads HwDevice, never these.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <va/va.h>

#include "pipeline/hw/devices.h"

namespace tc {

// What vaGetConfigAttributes answered for one profile and entrypoint; 0 = not answered.
struct VaConfigAttributes {
  uint32_t rt_formats = 0;    // VAConfigAttribRTFormat: VA_RT_FORMAT_* bits
  uint32_t rate_control = 0;  // VAConfigAttribRateControl: VA_RC_* bits (encode)
  int max_width = 0;          // VAConfigAttribMaxPictureWidth
  int max_height = 0;         // VAConfigAttribMaxPictureHeight
};

// One answer of vaQueryConfigEntrypoints: a VAProfile and its VAEntrypoint values, kept as ints
// so that fixtures can also hold profiles this libva's headers do not know; with the attributes
// of each entrypoint where they were read (a real device, or the Intel profile table).
struct VaProfileEntrypoints {
  int profile = VAProfileNone;
  std::vector<int> entrypoints;
  std::map<int, VaConfigAttributes> attributes;  // by entrypoint
};

// Adds what the profiles say to device, whether they came from libva or from the Intel profile
// table: VLD -> decode_profiles (every chroma) and decode (highest bit depth of the 4:2:0
// profiles per codec), EncSlice -> encode full, EncSliceLP -> encode low_power (4:2:0 profiles,
// with their rate-control modes and maximum sizes), VideoProc on VAProfileNone -> can_scale.
// Profiles that map to no codec we handle (JPEG, ...) are ignored.
void apply_va_caps(const std::vector<VaProfileEntrypoints>& profiles, HwDevice& device);

// Why a VA-API driver, named by its vendor string, cannot serve an Intel node: an emulation layer
// or Mesa's Gallium driver. Empty when it can.
std::string va_vendor_rejection(const std::string& vendor);

// What to do when vaInitialize fails on an Intel node with kernel driver `kernel_driver`, given
// LIBVA_DRIVER_NAME's value (empty = unset): libva 2.17 (Debian 12) does not map `xe` to iHD,
// and an inherited LIBVA_DRIVER_NAME naming another driver makes every Intel node fail.
std::string va_init_hint(const std::string& kernel_driver, const std::string& driver_name_env);

// The unusable_reason for a render node that open() refused with errno_value.
std::string render_node_open_error(const std::string& path, int errno_value);

}  // namespace tc
