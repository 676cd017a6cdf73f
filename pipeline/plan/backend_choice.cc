#include "pipeline/plan/backend_choice.h"

#include "pipeline/hw/backends.h"

namespace tc {
namespace {

std::string device_problems(const HwInventory& devices, BackendKind backend) {
  std::string text;
  auto add = [&](const std::string& line) { text += (text.empty() ? "" : "; ") + line; };
  for (const HwDevice& device : devices.devices)
    if (device.backend == backend && !device.usable())
      add(device.path + ": " + device.unusable_reason);
  for (const std::string& note : devices.notes) add(note);
  return text.empty() ? "none found" : text;
}

// The device of `backend` (at `path` when given) that can scale and keeps the most stages.
const HwDevice* best_device(BackendKind backend, const std::string& path,
                            const HwInventory& devices, const StagesOnDevice& stages) {
  const HwDevice* best = nullptr;
  int best_stages = -1;
  for (const HwDevice& device : devices.devices) {
    if (device.backend != backend || !device.usable() || !device.can_scale) continue;
    if (!path.empty() && device.path != path) continue;
    int kept = stages ? stages(device) : 0;
    if (kept > best_stages) best = &device, best_stages = kept;
  }
  return best;
}

BackendChoice choose_auto(const std::string& device_path, const HwInventory& devices,
                          const StagesOnDevice& stages) {
  std::string problems;
  for (const BackendDesc& backend : backends()) {
    if (backend.auto_label.empty()) continue;
    const HwDevice* device = best_device(backend.kind, device_path, devices, stages);
    if (!device) device = devices.find(backend.kind, device_path);
    std::string label(backend.auto_label);
    if (device && device->can_scale)
      return {backend.kind, device,
              "auto: " + label + " " + device->path + " (" + device->driver + ")"};
    problems += (problems.empty() ? "" : "; ") + std::string("no usable ") + label + " (" +
                device_problems(devices, backend.kind) + ")";
  }
  return {.reason = "auto: " + problems + ", so software"};
}

}  // namespace

Result<BackendChoice> choose_backend(BackendKind requested, const std::string& device_path,
                                     const HwInventory& devices, const StagesOnDevice& stages) {
  if (requested == BackendKind::kSoftware) return BackendChoice{.reason = "requested"};
  if (requested == BackendKind::kAuto) return choose_auto(device_path, devices, stages);
  const BackendDesc& backend = backend_desc(requested);
  const HwDevice* device = devices.find(requested, device_path);
  std::string flag = "--backend " + std::string(backend.name) + ": ";
  if (!device)
    return Status(Code::kDevice, flag + "no usable " + std::string(backend.device_noun) +
                                     (device_path.empty() ? "" : " at " + device_path) + " (" +
                                     device_problems(devices, requested) +
                                     "); --backend auto would fall back to software");
  if (!device->can_scale)
    return Status(Code::kDevice,
                  flag + device->path + " cannot scale (no video processing entrypoint)");
  return BackendChoice{requested, device, "requested"};
}

}  // namespace tc
