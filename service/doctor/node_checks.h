// The checks of one render node, each a Check (doctor.h). Internal to service/doctor.
#pragma once

#include <string>
#include <string_view>

#include "service/doctor/doctor.h"

namespace tc::doctor {

// Whether the process (identity) may open the node for reading and writing.
Check check_permissions(const std::string& node, const Identity& identity);
// "i915", "xe", ... from sys/class/drm/NODE/device/driver; empty when there is no link.
std::string kernel_driver_of(const Roots& roots, const std::string& node_name);
Check check_kernel_driver(const Roots& roots, const std::string& node);
// The Intel profile of the node's PCI id ("Arc A380 (DG2)"); an id not in the table is a skip.
Check check_profile(const Roots& roots, const std::string& node);
// The generation key of the node's PCI id ("kbl"); empty when not Intel or not in the table.
std::string_view generation_of_node(const Roots& roots, const std::string& node);
// The VA driver libva loaded on the node (device: discovery's answer for it, or null; node
// empty when there is none).
Check check_va_driver(const Options& options, const std::string& node, const HwDevice* device,
                      const std::string& kernel_driver);
// HuC and GuC as debugfs shows them on every GT (gt*/uc/huc_info, guc_info; HuC sits on the
// media GT gt1 from Meteor Lake on), else HuC as I915_PARAM_HUC_STATUS says: VDEnc bitrate
// control needs HuC, which GuC authenticates. Firmware that does not run fails only where the
// generation needs it (intel_stack.h: no shader encoder) or is unknown; elsewhere it is a skip.
Check check_huc(const Roots& roots, const std::string& node, const std::string& kernel_driver,
                std::string_view generation);
Check check_guc(const Roots& roots, const std::string& node, const std::string& kernel_driver,
                std::string_view generation);
// Opens the node and reads proc/self/fdinfo/FD.
Check check_fdinfo(const Roots& roots, const std::string& node);

}  // namespace tc::doctor
