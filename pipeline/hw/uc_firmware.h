// The state of an Intel GPU's micro-controller firmware (HuC, GuC) as the kernel shows it, for
// discovery (VDEnc CBR/VBR run in HuC) and `transcode doctor`. No libva, no GPU work: files under
// debugfs and one ioctl on the render node, so tests drive it with a fake debugfs tree.
#pragma once

#include <string>
#include <vector>

namespace tc {

enum class UcFirmware { kHuc, kGuc };

enum class UcState {
  kRunning,     // loaded (and, for HuC, authenticated): RUNNING, or SUCCESS on kernels before 5.x
  kNotRunning,  // the kernel answered, and the firmware does not run
  kUnknown,     // nothing answered: no debugfs (needs root), no ioctl for it on this kernel
};

// Where the state was read.
enum class UcSource {
  kNone,       // nothing answered (state kUnknown)
  kDebugfs,    // <debugfs>/dri/N/gt*/uc/<huc_info|guc_info>
  kI915Param,  // i915: DRM_IOCTL_I915_GETPARAM I915_PARAM_HUC_STATUS
  kXeQuery,    // xe: DRM_IOCTL_XE_DEVICE_QUERY DRM_XE_DEVICE_QUERY_UC_FW_VERSION, HuC type
};

// One GT's info file and the state it printed ("RUNNING", "DISABLED"; empty: no status line).
struct UcGtReading {
  std::string path;
  std::string said;
};

struct UcReading {
  UcState state = UcState::kUnknown;
  UcSource source = UcSource::kNone;
  // The info file, or "NODE (I915_PARAM_HUC_STATUS)" / "NODE (DRM_XE_DEVICE_QUERY_UC_FW_VERSION)";
  // empty when nothing answered.
  std::string where;
  // What it said: the file's status ("RUNNING", "DISABLED"; empty when it has no status line),
  // the parameter's value ("1", "0"), the xe release version ("8.5.4") or errno name ("ENODEV").
  std::string said;
  // Debugfs: every GT's file, in gt order; `where`/`said` are the first running one, else the
  // first one.
  std::vector<UcGtReading> gts;
  // State kUnknown: why nothing answered ("/sys/kernel/debug/dri is not readable (...)").
  std::string unknown_why;

  bool running() const { return state == UcState::kRunning; }
  // One line for notes and inventories: "debugfs /sys/kernel/debug/dri/0/gt1/uc/huc_info:
  // RUNNING", "/dev/dri/renderD128 (I915_PARAM_HUC_STATUS): 0", or the unknown_why.
  std::string summary() const;
  // Debugfs: "; PATH: STATE" for every GT's file but `where`'s ("" otherwise).
  std::string other_gts() const;
};

// The firmware's state for render node `node` ("/dev/dri/renderD128") of kernel driver
// `kernel_driver` ("i915", "xe"). Sources, first answer wins: debugfs gt*/uc/<file> on every GT
// under `debugfs_root` (the media GT gt1 holds HuC from Meteor Lake on; needs root and a mounted
// debugfs); then, for HuC, the kernel: i915's I915_PARAM_HUC_STATUS, or on xe the
// DRM_XE_DEVICE_QUERY_UC_FW_VERSION query of the HuC type, which answers a version only while HuC
// is RUNNING and ENODEV otherwise (Linux drivers/gpu/drm/xe/xe_query.c, query_uc_fw_version;
// compiled only where this build's <drm/xe_drm.h> has it: not with Debian 12's 6.1 headers).
// Neither ioctl needs root. `node_fd` is the caller's open descriptor of `node`, which the ioctls
// go to (the node is never opened again by name here); -1: the kernel is not asked.
UcReading read_uc_firmware(UcFirmware firmware, const std::string& debugfs_root,
                           const std::string& node, const std::string& kernel_driver, int node_fd);

// What an info file's text says its state is: "RUNNING", "DISABLED", ...; empty when it has no
// status line.
std::string uc_state_of_info(const std::string& text);

}  // namespace tc
