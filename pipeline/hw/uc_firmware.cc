// HuC/GuC state from debugfs and the kernel's ioctls (uc_firmware.h).
#include "pipeline/hw/uc_firmware.h"

#include <sys/ioctl.h>

#include <libdrm/i915_drm.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>

// The xe query of the HuC type came with the xe uAPI of early 2024 (Linux 6.12, Debian 13's
// linux-libc-dev, has it); Debian 12's 6.1 headers have no xe_drm.h at all. Without it xe nodes
// rely on debugfs alone.
#if __has_include(<drm/xe_drm.h>)
#include <drm/xe_drm.h>
#if defined(DRM_XE_DEVICE_QUERY_UC_FW_VERSION) && defined(XE_QUERY_UC_TYPE_HUC)
#define TC_HAVE_XE_UC_QUERY 1
#endif
#endif

#include "pipeline/core/file.h"

namespace tc {
namespace {

namespace fs = std::filesystem;

const char* info_file(UcFirmware firmware) {
  return firmware == UcFirmware::kHuc ? "huc_info" : "guc_info";
}
const char* label(UcFirmware firmware) {
  return firmware == UcFirmware::kHuc ? "HuC" : "GuC";
}

bool said_running(const std::string& said) {
  return said == "RUNNING" || said == "SUCCESS";
}

// The debugfs index of a render node: renderD128 -> 0 (its primary minor); older kernels also
// name the directory by the render minor, 128.
int render_minor(const std::string& node) {
  std::string name = fs::path(node).filename().string();
  if (!name.starts_with("renderD")) return -1;
  return std::atoi(name.c_str() + std::strlen("renderD"));
}

// "gt" (older i915), "gt0", "gt1", ... of one debugfs GPU directory, sorted.
std::vector<fs::path> gt_dirs(const fs::path& gpu_dir) {
  std::vector<fs::path> dirs;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(gpu_dir, error)) {
    std::string name = entry.path().filename().string();
    if (name == "gt" || (name.size() > 2 && name.starts_with("gt") &&
                         std::all_of(name.begin() + 2, name.end(), ::isdigit)))
      dirs.push_back(entry.path());
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

std::vector<UcGtReading> read_gts(UcFirmware firmware, const std::string& debugfs_root, int minor) {
  for (int index : {minor - 128, minor}) {
    std::vector<UcGtReading> found;
    for (const fs::path& gt : gt_dirs(debugfs_root + "/dri/" + std::to_string(index))) {
      std::string path = (gt / "uc" / info_file(firmware)).string();
      if (Result<std::string> text = read_file(path); text.is_ok())
        found.push_back({path, uc_state_of_info(*text)});
    }
    if (!found.empty()) return found;
  }
  return {};
}

UcReading from_gts(std::vector<UcGtReading> gts) {
  auto chosen = std::find_if(gts.begin(), gts.end(),
                             [](const UcGtReading& gt) { return said_running(gt.said); });
  bool running = chosen != gts.end();
  if (!running) chosen = gts.begin();
  UcReading reading;
  reading.state = running ? UcState::kRunning : UcState::kNotRunning;
  reading.source = UcSource::kDebugfs;
  reading.where = chosen->path;
  reading.said = chosen->said;
  reading.gts = std::move(gts);
  return reading;
}

// I915_PARAM_HUC_STATUS: 1 when HuC is loaded and authenticated, 0 when not; an error where the
// GPU has none or the kernel does not know the parameter.
std::optional<UcReading> huc_from_i915(const std::string& node, int node_fd) {
  int value = -1;
  drm_i915_getparam_t param{};
  param.param = I915_PARAM_HUC_STATUS;
  param.value = &value;
  if (ioctl(node_fd, DRM_IOCTL_I915_GETPARAM, &param) != 0) return std::nullopt;
  UcReading reading;
  reading.state = value > 0 ? UcState::kRunning : UcState::kNotRunning;
  reading.source = UcSource::kI915Param;
  reading.where = node + " (I915_PARAM_HUC_STATUS)";
  reading.said = std::to_string(value);
  return reading;
}

// xe_query.c query_uc_fw_version, XE_QUERY_UC_TYPE_HUC: the release version of the media GT's
// HuC while its status is XE_UC_FIRMWARE_RUNNING, else ENODEV. EINVAL: a kernel without the
// query (or without the HuC type): unknown.
std::optional<UcReading> huc_from_xe([[maybe_unused]] const std::string& node,
                                     [[maybe_unused]] int node_fd) {
#ifdef TC_HAVE_XE_UC_QUERY
  drm_xe_query_uc_fw_version version{};
  version.uc_type = XE_QUERY_UC_TYPE_HUC;
  drm_xe_device_query query{};
  query.query = DRM_XE_DEVICE_QUERY_UC_FW_VERSION;
  query.size = sizeof version;
  query.data = reinterpret_cast<uintptr_t>(&version);
  UcReading reading;
  reading.source = UcSource::kXeQuery;
  reading.where = node + " (DRM_XE_DEVICE_QUERY_UC_FW_VERSION)";
  if (ioctl(node_fd, DRM_IOCTL_XE_DEVICE_QUERY, &query) != 0) {
    if (errno != ENODEV) return std::nullopt;
    reading.state = UcState::kNotRunning;
    reading.said = "ENODEV";
    return reading;
  }
  reading.state = UcState::kRunning;
  reading.said = std::to_string(version.major_ver) + "." + std::to_string(version.minor_ver) + "." +
                 std::to_string(version.patch_ver);
  return reading;
#else
  return std::nullopt;
#endif
}

UcReading unknown(UcFirmware firmware, const std::string& debugfs_root, int minor) {
  UcReading reading;
  std::error_code error;
  if (!fs::is_directory(debugfs_root + "/dri", error))
    reading.unknown_why =
        debugfs_root +
        "/dri is not readable (debugfs is not mounted, or needs root): " + label(firmware) +
        " state unknown";
  else
    reading.unknown_why = "no gt*/uc/" + std::string(info_file(firmware)) + " under " +
                          debugfs_root + "/dri/" + std::to_string(minor - 128) +
                          " (kernel does not show it)";
  return reading;
}

}  // namespace

std::string uc_state_of_info(const std::string& text) {
  // i915 and xe print "<X>uC firmware: <file>" then "\tstatus: <STATE>"
  // (intel_uc_fw_status_repr, xe_uc_fw_status_repr); kernels before 5.x print
  // "status load: SUCCESS" instead.
  for (const char* key : {"status: ", "status load: "}) {
    size_t at = text.find(key);
    if (at == std::string::npos) continue;
    size_t begin = at + std::strlen(key);
    std::string said = text.substr(begin, text.find('\n', begin) - begin);
    while (!said.empty() && (said.back() == ' ' || said.back() == '\r')) said.pop_back();
    return said;
  }
  return {};
}

std::string UcReading::summary() const {
  std::string text;
  switch (source) {
    case UcSource::kNone:
      return unknown_why;
    case UcSource::kDebugfs:
      text = "debugfs " + where + ": " + (said.empty() ? "no status" : said);
      return state == UcState::kRunning ? text : text + other_gts();
    case UcSource::kI915Param:
    case UcSource::kXeQuery:
      return where + ": " + said;
  }
  return text;
}

std::string UcReading::other_gts() const {
  std::string text;
  for (const UcGtReading& gt : gts)
    if (gt.path != where) text += "; " + gt.path + ": " + (gt.said.empty() ? "no status" : gt.said);
  return text;
}

UcReading read_uc_firmware(UcFirmware firmware, const std::string& debugfs_root,
                           const std::string& node, const std::string& kernel_driver, int node_fd) {
  int minor = render_minor(node);
  if (std::vector<UcGtReading> gts = read_gts(firmware, debugfs_root, minor); !gts.empty())
    return from_gts(std::move(gts));
  bool ask_kernel = firmware == UcFirmware::kHuc && node_fd >= 0;
  if (ask_kernel && kernel_driver == "i915")
    if (std::optional<UcReading> reading = huc_from_i915(node, node_fd)) return *reading;
  if (ask_kernel && kernel_driver == "xe")
    if (std::optional<UcReading> reading = huc_from_xe(node, node_fd)) return *reading;
  return unknown(firmware, debugfs_root, minor);
}

}  // namespace tc
