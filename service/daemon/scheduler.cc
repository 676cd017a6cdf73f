#include "service/daemon/scheduler.h"

#include <algorithm>

#include "pipeline/plan/backend_choice.h"

namespace tc::daemon {

int default_slots(BackendKind backend, unsigned cores) {
  if (backend == BackendKind::kSoftware) return std::max(1, static_cast<int>(cores / 2));
  return 4;
}

std::vector<SchedDevice> devices_from_inventory(const HwInventory& inventory, int slots,
                                                unsigned cores) {
  std::vector<SchedDevice> devices;
  int software_slots = slots > 0 ? slots : default_slots(BackendKind::kSoftware, cores);
  devices.push_back({BackendKind::kSoftware, "", "software", software_slots, 0});
  for (const HwDevice& hw : inventory.devices) {
    if (!hw.usable()) continue;
    std::string name = std::string(name_of(hw.backend)) + " " + hw.path;
    devices.push_back(
        {hw.backend, hw.path, name, slots > 0 ? slots : default_slots(hw.backend, cores), 0});
  }
  return devices;
}

bool Scheduler::enqueue(const QueuedJob& job, bool force) {
  if (!force && static_cast<int>(queue_.size()) >= max_queue_) return false;
  queue_.insert(job);
  return true;
}

bool Scheduler::remove(const std::string& id) {
  auto it =
      std::find_if(queue_.begin(), queue_.end(), [&](const QueuedJob& j) { return j.id == id; });
  if (it == queue_.end()) return false;
  queue_.erase(it);
  return true;
}

// A device can run a job when the planner, pointed at that device, would run the job there:
// `auto` on a GPU that cannot scale plans software, so it takes a software slot. A job that
// no device can run (a backend this node lacks) gets a software slot, and the worker fails it
// with the planner's own reason.
bool Scheduler::can_run(const QueuedJob& job, const SchedDevice& device) const {
  const std::string& path = job.device_path.empty() ? device.path : job.device_path;
  Result<BackendChoice> choice = choose_backend(job.backend, path, inventory_);
  if (!choice.is_ok()) return false;
  std::string chosen_path = choice->device ? choice->device->path : "";
  return choice->kind == device.backend && chosen_path == device.path;
}

std::optional<int> Scheduler::least_loaded_free(const QueuedJob& job) const {
  bool any_match = std::any_of(devices_.begin(), devices_.end(),
                               [&](const SchedDevice& d) { return can_run(job, d); });
  std::optional<int> best;
  double best_load = 2;
  for (size_t i = 0; i < devices_.size(); ++i) {
    const SchedDevice& d = devices_[i];
    bool eligible = any_match ? can_run(job, d) : d.backend == BackendKind::kSoftware;
    if (!eligible || d.running >= d.slots) continue;
    double load = static_cast<double>(d.running) / d.slots;
    if (load < best_load) best_load = load, best = static_cast<int>(i);
  }
  return best;
}

std::optional<Assignment> Scheduler::next() {
  for (auto it = queue_.begin(); it != queue_.end(); ++it) {
    std::optional<int> device = least_loaded_free(*it);
    if (!device) continue;
    Assignment assignment{*it, *device};
    devices_[*device].running++;
    queue_.erase(it);
    return assignment;
  }
  return std::nullopt;
}

void Scheduler::release(int device) {
  if (device >= 0 && device < static_cast<int>(devices_.size()) && devices_[device].running > 0)
    devices_[device].running--;
}

}  // namespace tc::daemon
