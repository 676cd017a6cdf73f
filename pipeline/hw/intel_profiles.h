// Intel GPU generations as data: what VA-API (intel-media-driver, iHD) offers on each, so that
// plans can be made and tested for a GPU that is not here (`--assume-device`), and PCI ids
// that name the GPU in reports ("Arc A380 (DG2)"). Sources are cited in intel_profiles.cc.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/core/status.h"
#include "pipeline/hw/devices.h"
#include "pipeline/hw/intel_pci_ids.h"

namespace tc {

struct IntelProfileSummary {
  std::string_view key;            // what --assume-device takes: "dg2"
  std::string_view aliases;        // also taken: "arc,atsm,flex"
  std::string_view name;           // "Alchemist DG2 / Arc A-series, Flex 140/170 (ATS-M)"
  std::string_view kernel_driver;  // "i915" or "xe", as shipped by default
  bool huc_by_default;             // the kernel loads HuC without enable_guc= (Gen12 and newer)
  std::string what;                // "decode: h264 hevc(12-bit) ...; encode: ..."
};

// Every generation, oldest first.
std::vector<IntelProfileSummary> intel_profiles();

// A VA-API device as discovery would fill it from libva on that GPU, through the same
// apply_va_caps. `spec` is a key or alias, optionally with modifiers after ':':
// "huc" / "no-huc" (HuC firmware loaded or not: low-power CBR/VBR need it), "xe" / "i915"
// (kernel driver). Unknown names are kInvalidArgument listing the known ones.
Result<HwDevice> assume_intel_device(std::string_view spec);
// What VPP reads and writes in 10 bits (P010) on a generation (a key as intel_generation_of
// gives it) into device.vpp_reads_ten_bit / vpp_writes_ten_bit; left unset for an unknown key.
void set_vpp_ten_bit(std::string_view generation, HwDevice& device);
// The generation key a spec names ("cfl:no-huc" -> "kbl"); empty for an unknown name.
std::string_view intel_profile_key(std::string_view spec);

}  // namespace tc
