#include "pipeline/hw/discovery_cache.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavfilter/avfilter.h>
#include <libavutil/avutil.h>
#include <va/va.h>
}

#include "pipeline/hw/inventory_json.h"

namespace tc {
namespace {

std::vector<std::string> sorted_entries(const std::string& dir) {
  std::vector<std::string> names;
  DIR* handle = opendir(dir.c_str());
  if (!handle) return names;
  while (const dirent* entry = readdir(handle))
    if (entry->d_name[0] != '.') names.push_back(entry->d_name);
  closedir(handle);
  std::sort(names.begin(), names.end());
  return names;
}

std::string first_line(const std::string& path) {
  std::ifstream file(path);
  std::string line;
  std::getline(file, line);
  return line;
}

// A file's identity without reading it: a driver library replaced by a package upgrade changes.
std::string file_identity(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return "absent";
  return std::to_string(info.st_size) + "@" + std::to_string(info.st_mtim.tv_sec) + "." +
         std::to_string(info.st_mtim.tv_nsec);
}

std::string link_name(const std::string& path) {
  char target[512];
  ssize_t length = readlink(path.c_str(), target, sizeof target - 1);
  if (length <= 0) return "";
  std::string text(target, size_t(length));
  return text.substr(text.find_last_of('/') + 1);
}

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

std::string asked(const DiscoveryOptions& options) {
  std::string text = "asked=dri:" + options.dri_dir + " debugfs:" + options.debugfs +
                     " vaapi:" + std::to_string(options.vaapi) +
                     " qsv:" + std::to_string(options.qsv) +
                     " cuda:" + std::to_string(options.cuda) +
                     " vulkan:" + std::to_string(options.vulkan) + " nvenc:";
  for (VideoCodec codec : options.nvenc_codecs) text += std::string(name_of(codec)) + ",";
  return text;
}

// Each render node with its kernel driver and that module's version.
void add_device_nodes(const DiscoveryOptions& options, const std::string& root,
                      std::vector<std::string>& lines) {
  for (const std::string& node : sorted_entries(root + options.dri_dir)) {
    std::string driver = link_name(root + "/sys/class/drm/" + node + "/device/driver");
    std::string version = first_line(root + "/sys/module/" + driver + "/version");
    if (version.empty()) version = first_line(root + "/sys/module/" + driver + "/srcversion");
    lines.push_back("node=" + node + " driver=" + driver + " version=" + version);
  }
  lines.push_back("nvidia=" + first_line(root + "/proc/driver/nvidia/version"));
  // The HuC state (devices.h huc_running) follows the kernel's boot parameters
  // (i915.enable_guc=2) and firmware files, not the module's version: read again after a boot.
  lines.push_back("boot=" + first_line(root + "/proc/sys/kernel/random/boot_id"));
}

// The user-space drivers discovery loads: VA-API drivers, Vulkan ICDs, the QSV runtimes.
void add_user_space_drivers(const std::string& root, std::vector<std::string>& lines) {
  lines.push_back("env=LIBVA_DRIVER_NAME:" + env("LIBVA_DRIVER_NAME") + " LIBVA_DRIVERS_PATH:" +
                  env("LIBVA_DRIVERS_PATH") + " VK_ICD_FILENAMES:" + env("VK_ICD_FILENAMES") +
                  " VK_DRIVER_FILES:" + env("VK_DRIVER_FILES"));
  std::vector<std::string> dirs = {"/usr/lib/x86_64-linux-gnu/dri", "/usr/lib/dri",
                                   "/usr/local/lib/dri", "/usr/share/vulkan/icd.d",
                                   "/etc/vulkan/icd.d"};
  std::stringstream extra(env("LIBVA_DRIVERS_PATH"));
  for (std::string dir; std::getline(extra, dir, ':');)
    if (!dir.empty()) dirs.push_back(dir);
  for (const std::string& dir : dirs)
    for (const std::string& name : sorted_entries(root + dir))
      if (name.find("_drv_video.so") != std::string::npos || name.ends_with(".json"))
        lines.push_back("driver=" + dir + "/" + name + " " +
                        file_identity(root + dir + "/" + name));
  for (const char* runtime : {"libmfx-gen.so.1.2", "libmfxhw64.so.1", "libvpl.so.2"}) {
    std::string path = root + "/usr/lib/x86_64-linux-gnu/" + runtime;
    lines.push_back(std::string("runtime=") + runtime + " " + file_identity(path));
  }
}

bool has_usable_device(const HwInventory& inventory) {
  return std::any_of(inventory.devices.begin(), inventory.devices.end(),
                     [](const HwDevice& device) { return device.usable(); });
}

std::optional<HwInventory> read_entry(const std::string& path,
                                      const std::vector<std::string>& fingerprint) {
  std::ifstream file(path);
  if (!file) return std::nullopt;
  nlohmann::json entry = nlohmann::json::parse(file, nullptr, false);
  // The whole fingerprint is kept and compared: a digest collision cannot serve a wrong answer.
  if (!entry.is_object() || entry.value("fingerprint", nlohmann::json()) != fingerprint)
    return std::nullopt;
  Result<HwInventory> inventory = inventory_from_json(entry["inventory"]);
  if (!inventory.is_ok()) return std::nullopt;
  return std::move(*inventory);
}

// Written beside and renamed over: a reader sees the old entry or the new, never half of one.
void write_entry(const std::string& dir, const std::string& path,
                 const std::vector<std::string>& fingerprint, const HwInventory& inventory) {
  for (size_t slash = dir.find('/', 1); slash != std::string::npos;
       slash = dir.find('/', slash + 1))
    mkdir(dir.substr(0, slash).c_str(), 0700);  // ~/.cache may not exist yet
  mkdir(dir.c_str(), 0700);
  std::string temp = path + ".tmp" + std::to_string(getpid());
  {
    std::ofstream file(temp, std::ios::trunc);
    file << nlohmann::json{{"fingerprint", fingerprint},
                           {"inventory", inventory_to_json(inventory)}}
                .dump();
    if (!file) {
      std::remove(temp.c_str());
      return;
    }
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) std::remove(temp.c_str());
}

}  // namespace

std::vector<std::string> discovery_fingerprint(const DiscoveryOptions& options,
                                               const std::string& root) {
  std::vector<std::string> lines = {
      asked(options), "libs=avutil:" + std::to_string(avutil_version()) +
                          " avcodec:" + std::to_string(avcodec_version()) + " avfilter:" +
                          std::to_string(avfilter_version()) + " libva:" + VA_VERSION_S};
  add_device_nodes(options, root, lines);
  add_user_space_drivers(root, lines);
  return lines;
}

std::string fingerprint_key(const std::vector<std::string>& fingerprint) {
  uint64_t hash = 14695981039346656037ull;  // FNV-1a
  for (const std::string& line : fingerprint)
    for (char c : line + "\n") hash = (hash ^ uint8_t(c)) * 1099511628211ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

std::string default_cache_dir() {
  std::string xdg = env("XDG_CACHE_HOME");
  if (!xdg.empty()) return xdg + "/transcoded";
  std::string home = env("HOME");
  return home.empty() ? "" : home + "/.cache/transcoded";
}

HwInventory discover_cached(const DiscoveryOptions& options, const std::string& cache_dir,
                            const std::string& root) {
  if (cache_dir.empty()) return discover_devices(options);
  std::vector<std::string> fingerprint = discovery_fingerprint(options, root);
  std::string path = cache_dir + "/devices-" + fingerprint_key(fingerprint) + ".json";
  if (std::optional<HwInventory> cached = read_entry(path, fingerprint)) return std::move(*cached);
  HwInventory inventory = discover_devices(options);
  if (has_usable_device(inventory)) write_entry(cache_dir, path, fingerprint, inventory);
  return inventory;
}

}  // namespace tc
