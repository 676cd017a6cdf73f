// Hardware devices found on this host and what each can do, as probed (never from a table of
// GPU generations): VA-API render nodes through libdrm + libva, CUDA devices through libavutil.
// The planner reads only these structs, so plans are tested with hand-made inventories.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

extern "C" {
#include <libavcodec/codec_id.h>
}

#include "pipeline/core/status.h"
#include "pipeline/spec/job_spec.h"

namespace tc {

struct EncodeEntrypoints {
  bool full = false;       // VAEntrypointEncSlice (or NVENC for CUDA)
  bool low_power = false;  // VAEntrypointEncSliceLP (VDEnc): the only one on Arc/DG2 and newer
};

struct HwDevice {
  BackendKind backend = BackendKind::kVaapi;
  std::string path;                 // "/dev/dri/renderD128"; CUDA: the device index, "0"
  std::string driver;               // kernel driver: "i915", "xe", "amdgpu", "nvidia"
  std::string vendor;               // VA-API vendor string / GPU name
  std::map<AVCodecID, int> decode;  // codec -> highest bit depth the device decodes
  std::map<AVCodecID, EncodeEntrypoints> encode;
  bool can_scale = false;  // VAEntrypointVideoProc / scale_cuda / scale_vulkan
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
  bool vaapi = true;
  bool cuda = false;  // costs a CUDA context start-up (seconds): only when asked for
  // Codecs whose NVENC encoder is probed (a session opened per codec); empty = every one.
  std::vector<VideoCodec> nvenc_codecs;
  bool vulkan = false;  // likewise
};

HwInventory discover_devices(const DiscoveryOptions& options = {});

// What a job needs discovered, on top of `base`: CUDA or Vulkan only when the job asks for that
// backend (their start-up costs), NVENC probes only for the job's codecs.
DiscoveryOptions discovery_for(const JobSpec& spec, DiscoveryOptions base = {});

// Pure helpers, unit-tested with fixtures.
bool is_intel_driver(const std::string& kernel_driver);  // i915, xe
// libva vendor strings of emulation layers that are not real VA-API hardware (as mpv rejects).
bool is_emulated_vaapi_vendor(const std::string& vendor);

}  // namespace tc
