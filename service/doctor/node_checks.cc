// The checks of one render node: permissions, kernel driver, PCI id, VA driver, HuC, fdinfo.
#include "service/doctor/node_checks.h"

#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>
#include <va/va_version.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>

#include "pipeline/core/fd.h"
#include "pipeline/core/file.h"
#include "pipeline/hw/intel_profiles.h"
#include "pipeline/hw/intel_stack.h"
#include "pipeline/hw/uc_firmware.h"
#include "pipeline/hw/va_caps.h"
#include "pipeline/metrics/fdinfo.h"

namespace tc::doctor {
namespace {

namespace fs = std::filesystem;

Check pass(std::string name, std::string subject, std::string seen) {
  return {std::move(name), std::move(subject), CheckStatus::kPass, std::move(seen), ""};
}
Check fail(std::string name, std::string subject, std::string seen, std::string fix) {
  return {std::move(name), std::move(subject), CheckStatus::kFail, std::move(seen), std::move(fix)};
}
Check skip(std::string name, std::string subject, std::string why) {
  return {std::move(name), std::move(subject), CheckStatus::kSkip, std::move(why), ""};
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

std::optional<std::string> read_trimmed(const std::string& path) {
  Result<std::string> text = read_file(path);
  if (!text.is_ok()) return std::nullopt;
  return trimmed(std::move(*text));
}

// The group's name in this process's /etc/group, or its number when it has none here (the usual
// case in a container for the host's `render` group).
std::string group_name(gid_t gid) {
  std::vector<char> buffer(4096);
  group entry{};
  group* found = nullptr;
  if (getgrgid_r(gid, &entry, buffer.data(), buffer.size(), &found) != 0 || !found)
    return std::to_string(gid);
  return found->gr_name;
}

std::string joined_groups(const std::vector<gid_t>& groups) {
  std::string text;
  for (gid_t gid : groups) text += (text.empty() ? "" : ", ") + std::to_string(gid);
  return text.empty() ? "none" : text;
}

// "renderD128" of "/dev/dri/renderD128".
std::string name_of_node(const std::string& node) {
  return fs::path(node).filename().string();
}

// The node's sysfs device directory: sys/class/drm/renderD128/device.
std::string sysfs_device(const Roots& roots, const std::string& node_name) {
  return roots.sys + "/class/drm/" + node_name + "/device";
}

std::string env_value(const Options& options, const std::string& name) {
  auto found = options.env.find(name);
  return found == options.env.end() ? "" : found->second;
}

// "iHD" / "i965" from the vendor string libva returned, as vainfo shows it.
std::string va_driver_of(const std::string& vendor) {
  if (vendor.find("iHD") != std::string::npos) return "iHD";
  if (vendor.find("i965") != std::string::npos) return "i965";
  return vendor;
}

// The version at the end of an Intel vendor string: "... Gen Graphics - 23.1.1 ()" -> "23.1.1 ()".
std::string va_driver_version(const std::string& vendor) {
  size_t dash = vendor.rfind(" - ");
  return dash == std::string::npos ? "unknown" : vendor.substr(dash + 3);
}

constexpr const char* kI965Fix =
    "use Intel's media driver: unset LIBVA_DRIVER_NAME or set LIBVA_DRIVER_NAME=iHD, and install "
    "intel-media-va-driver(-non-free); i965 has no low-power encode, no VP9/AV1 encode and no "
    "support for Gen12 (Tiger Lake, Arc) and newer";

}  // namespace

bool may_read_write(const Identity& identity, uid_t owner, gid_t group, mode_t mode) {
  if (identity.uid == 0) return true;  // CAP_DAC_OVERRIDE
  mode_t rw = S_IRUSR | S_IWUSR;
  if (identity.uid == owner) return (mode & rw) == rw;
  bool in_group =
      std::find(identity.groups.begin(), identity.groups.end(), group) != identity.groups.end();
  if (in_group) return (mode & (S_IRGRP | S_IWGRP)) == (S_IRGRP | S_IWGRP);
  return (mode & (S_IROTH | S_IWOTH)) == (S_IROTH | S_IWOTH);
}

Check check_permissions(const std::string& node, const Identity& identity) {
  struct stat info {};
  if (stat(node.c_str(), &info) != 0)
    return fail("render-node", node, "cannot stat: " + std::string(std::strerror(errno)),
                "pass the device into the container: --device /dev/dri");
  char mode[16];
  std::snprintf(mode, sizeof mode, "%04o", unsigned(info.st_mode & 07777));
  std::string seen = std::string("mode ") + mode + ", owner " + std::to_string(info.st_uid) +
                     ", group " + group_name(info.st_gid) + " (" + std::to_string(info.st_gid) +
                     "); process uid " + std::to_string(identity.uid) + ", groups " +
                     joined_groups(identity.groups);
  if (may_read_write(identity, info.st_uid, info.st_gid, info.st_mode))
    return pass("render-node", node, seen);
  // The container complaint: the host's `render` GID is not the container's `render` GID.
  return fail("render-node", node, seen + ": the process may not open it for reading and writing",
              "add the node's group " + std::to_string(info.st_gid) +
                  " to the process: in a container, --group-add $(stat -c %g " + node +
                  ") (docker/podman; Kubernetes: securityContext.supplementalGroups), on the host "
                  "`usermod -aG " +
                  group_name(info.st_gid) +
                  " USER`; the group's number on the host is what counts, not its name");
}

std::string kernel_driver_of(const Roots& roots, const std::string& node_name) {
  std::error_code error;
  fs::path link = fs::read_symlink(sysfs_device(roots, node_name) + "/driver", error);
  return error ? "" : link.filename().string();
}

Check check_kernel_driver(const Roots& roots, const std::string& node) {
  std::string node_name = name_of_node(node);
  std::string driver = kernel_driver_of(roots, node_name);
  if (driver.empty())
    return fail("kernel-driver", node,
                "no driver link at " + sysfs_device(roots, node_name) + "/driver",
                "mount the host's /sys read-only into the container (it is by default with docker "
                "and podman); on the host: is the i915 or xe module loaded? (`lsmod`)");
  std::optional<std::string> version = read_trimmed(roots.sys + "/module/" + driver + "/version");
  std::optional<std::string> kernel = read_trimmed(roots.proc + "/sys/kernel/osrelease");
  std::string seen = driver + (version ? " " + *version : "") + ", kernel " +
                     (kernel ? *kernel : std::string("unknown"));
  if (!is_intel_driver(driver))
    return skip("kernel-driver", node, seen + ": not an Intel GPU (i915/xe), not checked");
  return pass("kernel-driver", node, seen);
}

std::optional<uint16_t> pci_id(const std::string& path) {
  std::optional<std::string> text = read_trimmed(path);
  if (!text) return std::nullopt;
  try {
    return static_cast<uint16_t>(std::stoul(*text, nullptr, 16));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string_view generation_of_node(const Roots& roots, const std::string& node) {
  std::string device_dir = sysfs_device(roots, name_of_node(node));
  std::optional<uint16_t> vendor = pci_id(device_dir + "/vendor");
  std::optional<uint16_t> device = pci_id(device_dir + "/device");
  if (!vendor || !device || *vendor != 0x8086) return {};
  return intel_generation_of(*device);
}

Check check_profile(const Roots& roots, const std::string& node) {
  std::string node_name = name_of_node(node);
  std::string device_dir = sysfs_device(roots, node_name);
  std::optional<uint16_t> vendor = pci_id(device_dir + "/vendor");
  std::optional<uint16_t> device = pci_id(device_dir + "/device");
  if (!vendor || !device)
    return skip("profile", node, "no PCI ids under " + device_dir + " (not a PCI device)");
  char ids[32];
  std::snprintf(ids, sizeof ids, "PCI %04x:%04x", unsigned(*vendor), unsigned(*device));
  if (*vendor != 0x8086) return skip("profile", node, std::string(ids) + ": not Intel");
  std::string model = intel_model_name(*device);
  // An id iHD does not list is most likely a GPU newer than this table: nothing is wrong with
  // the node for that, plans use what libva reports.
  if (model.empty())
    return skip("profile", node,
                std::string(ids) +
                    " is not in the table (intel/media-driver's device list, "
                    "pipeline/hw/intel_pci_ids.cc): plans use what libva reports; please report "
                    "the id with `transcode doctor --json`");
  return pass("profile", node,
              std::string(ids) + ": " + model + ", --assume-device " +
                  std::string(intel_generation_of(*device)));
}

Check check_va_driver(const Options& options, const std::string& node, const HwDevice* device,
                      const std::string& kernel_driver) {
  std::string forced = env_value(options, "LIBVA_DRIVER_NAME");
  std::string env_seen = forced.empty() ? "LIBVA_DRIVER_NAME unset" : "LIBVA_DRIVER_NAME=" + forced;
  std::string libva = std::string("libva built for VA-API ") + VA_VERSION_S;
  std::string subject = device ? device->path : node;
  if (forced == "i965")
    return fail("va-driver", subject, env_seen + " forces the legacy i965 driver", kI965Fix);
  if (std::string gap = intel_stack_gap(kernel_driver); !gap.empty())
    return fail("va-driver", subject, gap,
                "run the Debian 13 image (see the Dockerfile) on this node, or keep the node on "
                "i915 where its GPU has i915 support");
  if (!device) return skip("va-driver", subject, "discovery did not reach this node");
  if (!device->usable()) {
    bool opened = device->unusable_reason.find("cannot open") == std::string::npos;
    if (!opened) return skip("va-driver", subject, "the node cannot be opened (see render-node)");
    bool initialised = device->unusable_reason.find("vaInitialize") == std::string::npos;
    return fail("va-driver", subject, device->unusable_reason + "; " + env_seen,
                initialised ? "is this the render node of an Intel GPU with its i915/xe driver "
                              "loaded? (see kernel-driver)"
                            : va_init_hint(kernel_driver, forced));
  }
  std::string driver = va_driver_of(device->vendor);
  std::string seen = driver + " " + va_driver_version(device->vendor) + " (\"" + device->vendor +
                     "\"), " + libva + ", " + env_seen;
  if (driver == "i965") return fail("va-driver", subject, seen, kI965Fix);
  return pass("va-driver", subject, seen);
}

namespace {

// A firmware the kernel loads into the GPU's micro-controllers.
struct Firmware {
  UcFirmware which;
  const char* check;  // "huc"
  const char* label;  // "HuC"
  const char* fix;
};

constexpr Firmware kHuc{
    UcFirmware::kHuc, "huc", "HuC",
    "low-power (VDEnc) encode does CBR/VBR only with HuC: install the GPU firmware "
    "(firmware-misc-nonfree / linux-firmware) on the host, and where the kernel does not load it "
    "by default boot with i915.enable_guc=2; without it such jobs are planned CQP-only or refused"};
// HuC is loaded and authenticated through GuC: without GuC there is no HuC either.
constexpr Firmware kGuc{
    UcFirmware::kGuc, "guc", "GuC",
    "HuC is authenticated through GuC, so VDEnc bitrate control needs it: install the GPU "
    "firmware (firmware-misc-nonfree / linux-firmware) on the host, and where the kernel does not "
    "load it by default boot with i915.enable_guc=2"};

// Debugfs: the GT whose firmware runs, or else the first one (what a person should look at),
// naming what the other GTs said.
Check check_of_gts(const Firmware& firmware, const UcReading& reading) {
  std::string label = firmware.label;
  if (reading.running()) return pass(firmware.check, reading.where, label + " " + reading.said);
  std::string seen = reading.said.empty() ? "no " + label + " status in " + reading.where
                                          : label + " " + reading.said;
  return fail(firmware.check, reading.where, seen + reading.other_gts(), firmware.fix);
}

// The check of what the shared reader (pipeline/hw/uc_firmware.h) found.
Check check_of_reading(const Firmware& firmware, const UcReading& reading,
                       const std::string& node) {
  switch (reading.source) {
    case UcSource::kNone:
      return skip(firmware.check, node, reading.unknown_why);
    case UcSource::kDebugfs:
      return check_of_gts(firmware, reading);
    case UcSource::kI915Param:
      if (reading.running())
        return pass(firmware.check, reading.where,
                    "HuC RUNNING (authenticated, as the kernel says)");
      return fail(firmware.check, reading.where,
                  "HuC not loaded or not authenticated (the kernel says " + reading.said + ")",
                  firmware.fix);
    case UcSource::kXeQuery:
      if (reading.running())
        return pass(firmware.check, reading.where,
                    "HuC RUNNING (release " + reading.said + ", as the kernel says)");
      return fail(firmware.check, reading.where,
                  "HuC not running (the kernel says " + reading.said + ")", firmware.fix);
  }
  return skip(firmware.check, node, reading.unknown_why);
}

// What doctor makes of firmware that does not run, given the GPU's generation: required where
// every encoder is VDEnc (EHL/JSL, DG2 and newer) or the generation is unknown; elsewhere the
// shader encoders do CBR/VBR, so the check is skipped, saying what HuC would add.
Check weigh_firmware(Check check, std::string_view generation) {
  if (check.status != CheckStatus::kFail) return check;
  std::optional<IntelFirmwareNeeds> needs = intel_firmware_needs(generation);
  if (!needs) return check;
  std::string gen(generation);
  std::string by_default = "; HuC by default on " + gen + ": " + std::string(needs->huc_default);
  if (needs->huc_required) {
    check.seen += ": required on " + gen +
                  ", where every encoder is low-power (VDEnc), whose CBR/VBR run in HuC" +
                  by_default;
    return check;
  }
  check.status = CheckStatus::kSkip;
  check.seen += ": not required on " + gen +
                ", whose shader encoders do CBR/VBR without firmware; low-power (VDEnc) encode is "
                "CQP-only without it" +
                by_default;
  return check;
}

Check check_firmware(const Firmware& firmware, const Roots& roots, const std::string& node,
                     const std::string& kernel_driver, std::string_view generation) {
  if (kernel_driver.empty())
    return skip(firmware.check, node, "kernel driver unknown (see kernel-driver)");
  if (!is_intel_driver(kernel_driver))
    return skip(firmware.check, node, "not an Intel GPU (i915/xe)");
  // Opened once here for the kernel's answer (I915_PARAM_HUC_STATUS, the xe query), where
  // debugfs does not show the firmware; not opened, the kernel is not asked.
  ScopedFd fd(open(node.c_str(), O_RDWR | O_CLOEXEC));
  UcReading reading =
      read_uc_firmware(firmware.which, roots.debugfs, node, kernel_driver, fd.get());
  return weigh_firmware(check_of_reading(firmware, reading, node), generation);
}

}  // namespace

Check check_huc(const Roots& roots, const std::string& node, const std::string& kernel_driver,
                std::string_view generation) {
  return check_firmware(kHuc, roots, node, kernel_driver, generation);
}

Check check_guc(const Roots& roots, const std::string& node, const std::string& kernel_driver,
                std::string_view generation) {
  return check_firmware(kGuc, roots, node, kernel_driver, generation);
}

Check fdinfo_from_text(const std::string& node, const std::string& text) {
  const std::string fix =
      "per-job engine utilisation needs DRM fdinfo engine counters: Linux 5.19 or newer for "
      "i915, 6.8 or newer for xe";
  std::optional<metrics::DrmClient> client = metrics::parse_fdinfo(text);
  if (!client)
    return fail("fdinfo", node, "no drm-driver/drm-client-id keys in the node's fdinfo", fix);
  if (client->engines.empty())
    return fail("fdinfo", node, client->driver + ": no drm-engine-* or drm-cycles-* keys", fix);
  std::string engines;
  for (const auto& [name, counter] : client->engines)
    engines += (engines.empty() ? "" : ", ") + name;
  return pass("fdinfo", node, client->driver + " engine counters: " + engines);
}

Check check_fdinfo(const Roots& roots, const std::string& node) {
  ScopedFd fd(open(node.c_str(), O_RDWR | O_CLOEXEC));
  if (!fd.is_open()) return skip("fdinfo", node, "the node cannot be opened (see render-node)");
  std::string path = roots.proc + "/self/fdinfo/" + std::to_string(fd.get());
  Result<std::string> text = read_file(path);
  if (!text.is_ok()) return skip("fdinfo", node, "cannot read " + path + " (/proc not mounted?)");
  return fdinfo_from_text(node, *text);
}

}  // namespace tc::doctor
