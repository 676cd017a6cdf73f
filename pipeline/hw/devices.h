// Hardware devices found on this host and what each can do, as probed (never from a table of
// GPU generations): VA-API render nodes through libdrm + libva, CUDA devices through libavutil.
// The planner reads only these structs, so plans are tested with hand-made inventories.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

extern "C" {
#include <libavcodec/codec_id.h>
}

#include "pipeline/core/status.h"
#include "pipeline/spec/job_spec.h"

namespace tc {

// Rate-control modes as VAConfigAttribRateControl reports them: libva's VA_RC_* bits (checked
// against va.h in devices.cc), so that the planner needs no libva header.
namespace va_rc {
constexpr uint32_t kCbr = 0x2;
constexpr uint32_t kVbr = 0x4;
constexpr uint32_t kCqp = 0x10;
constexpr uint32_t kIcq = 0x40;
constexpr uint32_t kQvbr = 0x400;
}  // namespace va_rc

struct EncodeEntrypoints {
  bool full = false;       // VAEntrypointEncSlice (or NVENC for CUDA)
  bool low_power = false;  // VAEntrypointEncSliceLP (VDEnc): the only one on Arc/DG2 and newer
  // VAConfigAttribRateControl of each entrypoint (va_rc bits); 0 = not probed (hand-made
  // inventories, CUDA): the encoder is trusted to take every mode.
  uint32_t full_rate_control = 0;
  uint32_t low_power_rate_control = 0;
  // VAConfigAttribMaxPictureWidth/Height; 0 = not probed.
  int max_width = 0;
  int max_height = 0;
  // The deepest and widest each entrypoint encodes (its VA profiles: HEVCMain10, VP9Profile2,
  // AV1Profile0 reach 10 bits; RTFormat narrows them); 0 = not probed (hand-made inventories,
  // CUDA): the backend's table decides. Skylake's HEVC is Main (8-bit) only.
  int full_bit_depth = 0;
  int low_power_bit_depth = 0;
  int full_chroma = 0;  // 420, 422, 444
  int low_power_chroma = 0;
  // The depth the low-power or the full entrypoint encodes; 0 = not probed.
  int bit_depth(bool low_power) const { return low_power ? low_power_bit_depth : full_bit_depth; }
};

// One VA profile the device decodes (VAEntrypointVLD), as discovery recorded it.
struct DecodeProfile {
  int va_profile = 0;  // VAProfile
  std::string name;    // "HEVCMain10", as vainfo prints it without the VAProfile prefix
  AVCodecID codec = AV_CODEC_ID_NONE;
  int bit_depth = 8;  // the highest it takes (VAConfigAttribRTFormat, else the profile's own)
  int chroma = 420;   // 420, 422 or 444
  int max_width = 0;  // VAConfigAttribMaxPictureWidth/Height; 0 = not known
  int max_height = 0;
};

struct HwDevice {
  BackendKind backend = BackendKind::kVaapi;
  std::string path;  // "/dev/dri/renderD128"; CUDA: the device index, "0"
  // CUDA: the device's ordinal (what NVML and the driver number it by); `path` holds it as the
  // text FFmpeg opens. Unset for DRM nodes.
  std::optional<unsigned> ordinal;
  std::string driver;               // kernel driver: "i915", "xe", "amdgpu", "nvidia"
  std::string vendor;               // VA-API vendor string / GPU name
  std::map<AVCodecID, int> decode;  // codec -> highest bit depth the device decodes
  std::map<AVCodecID, EncodeEntrypoints> encode;
  // Why a codec this backend has an encoder for cannot encode here, as the probe found it (the
  // NVENC session's open error: "OpenEncodeSessionEx failed: unsupported device" on a GPU without
  // NVENC), so that the plan's "cannot encode" names the cause; absent when not probed.
  std::map<AVCodecID, std::string> encode_unavailable;
  bool can_scale = false;  // VAEntrypointVideoProc / scale_cuda / scale_vulkan
  // HDR10 to SDR tone mapping in VPP (VAProcFilterHighDynamicRangeToneMapping with HDR10 to
  // SDR, what tonemap_vaapi needs): Ice Lake and newer. nullopt = not probed (hand-made
  // inventories, other backends): the backend's filter is trusted.
  std::optional<bool> can_tonemap;
  // Whether VPP (scale_vaapi and the other *_vaapi filters) reads and writes 10-bit frames
  // (P010), by the generation (intel_profiles.h set_vpp_ten_bit): Broadwell neither, Gen9
  // (SKL, BXT, KBLx) reads P010 but writes none, Ice Lake and newer both. Discovery takes it
  // from the node's PCI id (no libva query is used for it). nullopt = not known (an id not in
  // the table, other backends, hand-made inventories): trusted.
  std::optional<bool> vpp_reads_ten_bit;
  std::optional<bool> vpp_writes_ten_bit;
  // Whether the HuC firmware runs (VDEnc CBR/VBR run in it), as discovery read it on an Intel
  // node (uc_firmware.h: debugfs, else the kernel's ioctl) or --assume-device assumed it;
  // nullopt = not known (nothing answered, other backends, hand-made inventories). On xe, where
  // iHD lists CBR/VBR on VDEnc either way, anything but true leaves VDEnc CQP-only.
  std::optional<bool> huc_running;
  // Where that came from and what it said ("debugfs /sys/kernel/debug/dri/0/gt1/uc/huc_info:
  // RUNNING"), or why nothing answered; empty where not read.
  std::string huc_seen;
  // Every VA profile with VLD, 4:2:2/4:4:4 included; empty = not known (CUDA, hand-made
  // inventories): then `decode` alone decides.
  std::vector<DecodeProfile> decode_profiles;
  // The GPU by its PCI id, "Arc A380 (DG2)"; empty when the id is not in our table.
  std::string model;
  // Its generation of intel_profiles.h ("kbl"), by the PCI id or the assumed profile; empty when
  // not known (an id not in the table, other backends).
  std::string generation;
  // Empty when usable; else why not ("driver amdgpu is not an Intel GPU driver").
  std::string unusable_reason;

  bool usable() const { return unusable_reason.empty(); }
  bool decodes(AVCodecID codec, int bit_depth) const;
  bool encodes(AVCodecID codec) const;
};

struct HwInventory {
  std::vector<HwDevice> devices;
  // What discovery looked at and why it found nothing there ("/dev/dri: no such directory").
  std::vector<std::string> notes;

  // The first usable device of a backend, or of a backend at a given path.
  const HwDevice* find(BackendKind backend, const std::string& path = {}) const;
};

struct DiscoveryOptions {
  std::string dri_dir = "/dev/dri";
  // Where debugfs is mounted: the HuC state of Intel nodes is read under it (uc_firmware.h).
  std::string debugfs = "/sys/kernel/debug";
  bool vaapi = true;
  bool cuda = false;  // costs a CUDA context start-up (seconds): only when asked for
  // Codecs whose NVENC encoder is probed (a session opened per codec); empty = every one.
  std::vector<VideoCodec> nvenc_codecs;
  bool vulkan = false;  // likewise
  // QSV on every usable VA-API node (loads the MSDK / oneVPL runtime): only when asked for.
  bool qsv = false;
};

HwInventory discover_devices(const DiscoveryOptions& options = {});

// Whether the NVIDIA kernel driver is loaded, from `proc` (where /proc is): a file read, no
// CUDA runtime started.
bool nvidia_driver_loaded(const std::string& proc = "/proc");

// What a job needs discovered, on top of `base`: CUDA or Vulkan only when the job asks for that
// backend (their start-up costs), NVENC probes only for the job's codecs.
DiscoveryOptions discovery_for(const JobSpec& spec, DiscoveryOptions base = {});

// The QSV device on a VA-API node: QSV runs on the node's VA-API driver, so what the node
// decodes and encodes is what the *_qsv codecs can; it scales where scale_qsv is built.
HwDevice qsv_device_on(const HwDevice& vaapi_node);

// Pure helpers, unit-tested with fixtures.
bool is_intel_driver(const std::string& kernel_driver);  // i915, xe
// libva vendor strings of emulation layers that are not real VA-API hardware (as mpv rejects).
bool is_emulated_vaapi_vendor(const std::string& vendor);

}  // namespace tc
