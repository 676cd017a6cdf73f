// Intel GPU PCI device ids: which platform and which generation of our profiles
// (intel_profiles.h) each is. The list is media-driver's own: every id that iHD registers a
// device for (DeviceInfoFactory<GfxDeviceInfo>::RegisterDevice in its media_sysinfo_*.cpp),
// so an id iHD drives is an id we name. Sources are cited in intel_pci_ids.cc.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tc {

// "Arc A380 (DG2)", "UHD Graphics 630 (CFL)", or the platform's name where we have no marketing
// name for the id ("Comet Lake GPU (CML)"); empty when the id is not in the table.
std::string intel_model_name(uint16_t pci_device_id);
// The generation key of a PCI device id ("dg2"), as --assume-device takes it; empty when the id
// is not in the table.
std::string_view intel_generation_of(uint16_t pci_device_id);
// The platform's short name ("CFL", "ADL-N", "ARL"); empty when the id is not in the table.
std::string_view intel_platform_of(uint16_t pci_device_id);

}  // namespace tc
