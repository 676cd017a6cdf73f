#include "service/doctor/doctor.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "service/common/exit_codes.h"
#include "service/doctor/node_checks.h"
#include "service/doctor/test_transcode.h"

namespace tc::doctor {
namespace {

namespace fs = std::filesystem;

// Render nodes in numeric order, as discovery lists them; nullopt when dri_dir cannot be listed.
std::optional<std::vector<std::string>> render_nodes(const std::string& dri_dir) {
  std::error_code error;
  fs::directory_iterator entries(dri_dir, error);
  if (error) return std::nullopt;
  std::vector<std::string> nodes;
  for (const fs::directory_entry& entry : entries)
    if (entry.path().filename().string().starts_with("renderD"))
      nodes.push_back(entry.path().filename().string());
  std::sort(nodes.begin(), nodes.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  return nodes;
}

const HwDevice* device_at(const HwInventory& inventory, const std::string& path) {
  for (const HwDevice& device : inventory.devices)
    if (device.backend == BackendKind::kVaapi && device.path == path) return &device;
  return nullptr;
}

// What could not be checked without a node, said as skips so that the report lists every check.
void add_no_device(const Options& options, const std::string& dri_dir, bool listed,
                   Report& report) {
  report.no_device = true;
  report.checks.push_back(
      {"render-node", dri_dir, CheckStatus::kFail,
       listed ? "no renderD* node: this process sees no GPU"
              : "no such directory: this process "
                "sees no GPU",
       "on a GPU node, give the process the device: in a container --device /dev/dri (docker, "
       "podman) or the Intel device plugin's gpu.intel.com/i915 resource (Kubernetes)"});
  for (const char* name : {"kernel-driver", "profile"})
    report.checks.push_back({name, "", CheckStatus::kSkip, "no render node", ""});
  Check va = check_va_driver(options, "", nullptr, "");
  if (va.status == CheckStatus::kSkip) va.seen = "no render node";
  report.checks.push_back(std::move(va));
  for (const char* name : {"guc", "huc", "fdinfo"})
    report.checks.push_back({name, "", CheckStatus::kSkip, "no render node", ""});
}

void add_node_checks(const Options& options, const HwInventory& inventory,
                     const std::string& dri_dir, const std::string& node_name, Report& report) {
  std::string node = dri_dir + "/" + node_name;
  report.checks.push_back(check_permissions(node, options.identity));
  std::string driver = kernel_driver_of(options.roots, node_name);
  report.checks.push_back(check_kernel_driver(options.roots, node));
  if (!driver.empty() && !is_intel_driver(driver)) return;  // the rest is about Intel GPUs
  report.checks.push_back(check_profile(options.roots, node));
  report.checks.push_back(check_va_driver(options, node, device_at(inventory, node), driver));
  std::string_view generation = generation_of_node(options.roots, node);
  report.checks.push_back(check_guc(options.roots, node, driver, generation));
  report.checks.push_back(check_huc(options.roots, node, driver, generation));
  report.checks.push_back(check_fdinfo(options.roots, node));
}

std::string dri_dir_of(const Options& options) {
  return options.roots.dev + "/dri";
}

}  // namespace

std::string_view status_name(CheckStatus status) {
  switch (status) {
    case CheckStatus::kPass:
      return "pass";
    case CheckStatus::kFail:
      return "fail";
    case CheckStatus::kSkip:
      return "skip";
  }
  return "skip";
}

Identity this_process() {
  Identity identity;
  identity.uid = geteuid();
  identity.groups.push_back(getegid());
  int count = getgroups(0, nullptr);
  std::vector<gid_t> groups(std::max(count, 0));
  count = getgroups(int(groups.size()), groups.data());
  if (count > 0)
    identity.groups.insert(identity.groups.end(), groups.begin(), groups.begin() + count);
  return identity;
}

std::map<std::string, std::string> process_env() {
  std::map<std::string, std::string> env;
  for (const char* name : {"LIBVA_DRIVER_NAME", "LIBVA_DRIVERS_PATH"})
    if (const char* value = std::getenv(name)) env[name] = value;
  return env;
}

bool Report::passed() const {
  return std::none_of(checks.begin(), checks.end(),
                      [](const Check& check) { return check.status == CheckStatus::kFail; });
}

int Report::exit_code() const {
  if (no_device) return kExitDevice;
  return passed() ? kExitOk : kExitCheckFailed;
}

Report quick_doctor(const Options& options, const HwInventory& inventory) {
  Report report;
  std::string dri_dir = dri_dir_of(options);
  std::optional<std::vector<std::string>> nodes = render_nodes(dri_dir);
  if (!nodes || nodes->empty()) {
    add_no_device(options, dri_dir, nodes.has_value(), report);
    return report;
  }
  for (const std::string& node_name : *nodes)
    add_node_checks(options, inventory, dri_dir, node_name, report);
  return report;
}

Report run_doctor(const Options& options) {
  std::string dri_dir = dri_dir_of(options);
  HwInventory inventory = options.discover ? options.discover(dri_dir)
                                           : discover_devices(DiscoveryOptions{.dri_dir = dri_dir});
  Report report = quick_doctor(options, inventory);
  if (!options.test_transcode) return report;
  std::vector<Check> transcodes = test_transcodes(options, inventory);
  report.checks.insert(report.checks.end(), transcodes.begin(), transcodes.end());
  return report;
}

std::string format_table(const Report& report) {
  std::ostringstream out;
  for (const Check& check : report.checks) {
    out << status_name(check.status) << "  " << check.name;
    if (!check.subject.empty()) out << " (" << check.subject << ")";
    out << "\n      " << check.seen << "\n";
    if (!check.fix.empty()) out << "      fix: " << check.fix << "\n";
  }
  size_t failed = std::count_if(report.checks.begin(), report.checks.end(),
                                [](const Check& c) { return c.status == CheckStatus::kFail; });
  if (report.no_device)
    out << "no GPU device: the checks that need one were skipped\n";
  else if (failed)
    out << failed << " check(s) failed\n";
  else
    out << "every check that applies passed\n";
  return out.str();
}

std::string report_to_json(const Report& report) {
  nlohmann::json checks = nlohmann::json::array();
  for (const Check& check : report.checks)
    checks.push_back({{"name", check.name},
                      {"subject", check.subject},
                      {"status", status_name(check.status)},
                      {"seen", check.seen},
                      {"fix", check.fix}});
  nlohmann::json json{{"passed", report.passed() && !report.no_device},
                      {"no_device", report.no_device},
                      {"exit_code", report.exit_code()},
                      {"checks", checks}};
  return json.dump(2);
}

}  // namespace tc::doctor
