// The pure parts of VA-API discovery, apart from the libva and libdrm calls so that tests can feed
// them fixtures (profile lists of real GPUs, vendor strings, errno values) without an Intel GPU.
// Internal to pipeline/hw: the planner reads HwDevice, never these.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <va/va.h>
#include <va/va_vpp.h>

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

// Whether tonemap_vaapi can run: a VAProcFilterHighDynamicRangeToneMapping cap for HDR10
// metadata with VA_TONE_MAPPING_HDR_TO_SDR, as FFmpeg 5.1's vf_tonemap_vaapi.c
// (tonemap_vaapi_build_filter_params) requires, else it fails with "VAAPI driver doesn't
// support HDR". iHD registers the filter from Gen11 on (media_libvpp caps of ICL and newer);
// Gen9/9.5 and EHL/JSL have none.
bool tonemaps_hdr10(const std::vector<VAProcFilterCapHighDynamicRange>& caps);

// On the xe kernel driver iHD sets hasHuc without asking the kernel (issue 37's review of
// media-driver's xe backend), so VDEnc lists CBR/VBR whether or not the HuC firmware runs;
// without it they fail at the first frame. Where `huc_loaded` is false this
// keeps CQP alone on the low-power entrypoints, and on the full ones where the device has no
// low-power entrypoint at all (from Meteor Lake VAEntrypointEncSlice is VDEnc too).
void gate_vdenc_bitrate_on_huc(bool huc_loaded, HwDevice& device);

// What discovery does with the HuC state once libva has filled the caps (after vaInitialize):
// reads it for device.path on device.driver (uc_firmware.h: debugfs under `debugfs_root`, else
// the kernel through `node_fd`, discovery's open node; -1 asks debugfs alone),
// records it in huc_running / huc_seen, and on xe gates VDEnc CBR/VBR unless HuC is known to run.
// On i915 iHD asks the kernel itself (I915_PARAM_HUC_STATUS), so the caps are left as listed.
void apply_huc_state(const std::string& debugfs_root, int node_fd, HwDevice& device);

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
