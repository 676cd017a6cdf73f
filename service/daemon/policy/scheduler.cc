#include "service/daemon/policy/scheduler.h"

#include <algorithm>
#include <chrono>
#include <limits>

#include "pipeline/plan/backend_choice.h"

namespace tc::daemon {

namespace {

double monotonic_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int default_slots(BackendKind backend, unsigned cores) {
  if (backend == BackendKind::kSoftware) return std::max(1, static_cast<int>(cores / 2));
  return 4;
}

int default_slot_cap(BackendKind backend, unsigned cores) {
  if (backend == BackendKind::kSoftware) return std::max(1, static_cast<int>(cores));
  return 16;
}

std::vector<SchedDevice> devices_from_inventory(const HwInventory& inventory, int slots,
                                                unsigned cores) {
  std::vector<SchedDevice> devices;
  int software_slots = slots > 0 ? slots : default_slot_cap(BackendKind::kSoftware, cores);
  devices.push_back({BackendKind::kSoftware, "", "software", software_slots, 0});
  for (const HwDevice& hw : inventory.devices) {
    if (!hw.usable()) continue;
    std::string name = std::string(name_of(hw.backend)) + " " + hw.path;
    devices.push_back({hw.backend,
                       hw.path,
                       name,
                       slots > 0 ? slots : default_slot_cap(hw.backend, cores),
                       0,
                       {},
                       hw.backend == BackendKind::kCuda ? hw.ordinal : std::nullopt});
  }
  return devices;
}

LoadModel load_model_for(const std::vector<SchedDevice>& devices, int slots, unsigned cores) {
  LoadSettings settings;
  settings.cores = std::max(1u, cores);
  LoadModel model(settings);
  for (const SchedDevice& d : devices) {
    double fixed = slots > 0 ? slots : default_slots(d.backend, cores);
    if (d.backend == BackendKind::kSoftware)
      model.add_device(false, {settings.cores / fixed, 0});
    else  // its CPU use is learned: a GPU job's prior is its engines alone, as the slots were
      model.add_device(true, {0, 100 / fixed});
  }
  return model;
}

Scheduler::Scheduler(HwInventory inventory, std::vector<SchedDevice> devices, LoadModel load)
    : inventory_(std::move(inventory)),
      devices_(std::move(devices)),
      load_(std::move(load)),
      clock_(monotonic_s) {
  look_at_room();
}

// A device can run a job when the planner, pointed at that device, would run the job there:
// `auto` on a GPU that cannot scale plans software, so it takes a software slot. A job that
// no device can run (a backend this node lacks) gets a software slot, and the worker fails it
// with the planner's own reason.
bool Scheduler::can_run(const QueuedJob& job, const SchedDevice& device) const {
  return placement_on(job, device).has_value();
}

std::optional<Placement> Scheduler::placement_on(const QueuedJob& job,
                                                 const SchedDevice& device) const {
  const std::string& path = job.device_path.empty() ? device.path : job.device_path;
  Result<BackendChoice> choice = choose_backend(job.backend, path, inventory_);
  if (!choice.is_ok()) return std::nullopt;
  std::string chosen_path = choice->device ? choice->device->path : "";
  if (choice->kind != device.backend || chosen_path != device.path) return std::nullopt;
  return Placement{choice->kind, chosen_path, choice->reason};
}

std::optional<Placement> Scheduler::placement(const QueuedJob& job, int device) const {
  return placement_on(job, devices_.at(static_cast<size_t>(device)));
}

std::optional<int> Scheduler::least_loaded_free(const QueuedJob& job) const {
  bool any_match = std::any_of(devices_.begin(), devices_.end(),
                               [&](const SchedDevice& d) { return can_run(job, d); });
  std::optional<int> best;
  double best_load = 2;
  for (size_t i = 0; i < devices_.size(); ++i) {
    const SchedDevice& d = devices_[i];
    bool eligible = any_match ? can_run(job, d) : d.backend == BackendKind::kSoftware;
    if (!eligible || !has_room(i)) continue;
    double load = static_cast<double>(d.running) / d.slots;
    if (load < best_load) best_load = load, best = static_cast<int>(i);
  }
  return best;
}

// Room: a free slot under the device's and the node's caps, and headroom for one more job by
// the measured load.
bool Scheduler::has_room(size_t device) const {
  const SchedDevice& d = devices_[device];
  return d.running < d.slots && node_room() > 0 &&
         load_.more_jobs(static_cast<int>(device), clock_()) >= 1;
}

int Scheduler::node_room() const {
  if (node_cap_ <= 0) return std::numeric_limits<int>::max();
  int running = 0;
  for (const SchedDevice& d : devices_) running += d.running;
  return std::max(0, node_cap_ - running);
}

std::optional<int> Scheduler::place(const QueuedJob& job) {
  std::optional<int> device = least_loaded_free(job);
  if (!device) return device;
  devices_[*device].running++;
  load_.start(*device, job.id, clock_());
  look_at_room();
  return device;
}

bool Scheduler::sample(const std::string& job, const metrics::EngineUsage& live) {
  load_.sample(job, live, clock_());
  return look_at_room();
}

bool Scheduler::look_at_room() {
  had_room_.resize(devices_.size(), false);
  bool gained = false;
  for (size_t i = 0; i < devices_.size(); ++i) {
    bool room = has_room(i);
    gained = gained || (room && !had_room_[i]);
    had_room_[i] = room;
  }
  return gained;
}

std::vector<SchedDevice> Scheduler::devices_now() const {
  std::vector<SchedDevice> devices = devices_;
  for (size_t i = 0; i < devices.size(); ++i) {
    SchedDevice& d = devices[i];
    d.load = load_.view(static_cast<int>(i), clock_());
    d.load.capacity = std::max(0, std::min({d.slots - d.running, d.load.capacity, node_room()}));
  }
  return devices;
}

bool Scheduler::has_free_slot(BackendKind backend) const {
  for (size_t i = 0; i < devices_.size(); ++i)
    if (devices_[i].backend == backend && has_room(i)) return true;
  return false;
}

std::vector<std::string> Scheduler::claimable(const std::set<std::string>& offered_anywhere) const {
  std::vector<std::string> backends;
  bool any_free = false;
  for (size_t i = 0; i < devices_.size(); ++i) any_free = any_free || has_room(i);
  if (!any_free) return backends;
  backends.push_back(std::string(name_of(BackendKind::kAuto)));
  std::set<std::string> here = offered();
  for (BackendKind kind : {BackendKind::kSoftware, BackendKind::kVaapi, BackendKind::kQsv,
                           BackendKind::kVulkan, BackendKind::kCuda}) {
    std::string name(name_of(kind));
    bool mine = here.count(name) > 0 && has_free_slot(kind);
    bool nobodys = offered_anywhere.count(name) == 0 && has_free_slot(BackendKind::kSoftware);
    if (mine || nobodys) backends.push_back(name);
  }
  return backends;
}

std::set<std::string> Scheduler::offered() const {
  std::set<std::string> names;
  for (const SchedDevice& d : devices_) names.insert(std::string(name_of(d.backend)));
  return names;
}

void keep_backends(const std::vector<std::string>& backends, HwInventory& inventory,
                   std::vector<SchedDevice>& devices) {
  if (backends.empty()) return;
  auto offered = [&](BackendKind kind) {
    return std::find(backends.begin(), backends.end(), name_of(kind)) != backends.end();
  };
  std::erase_if(devices, [&](const SchedDevice& d) { return !offered(d.backend); });
  std::erase_if(inventory.devices, [&](const HwDevice& d) { return !offered(d.backend); });
}

void Scheduler::release(int device, const std::string& job,
                        const std::optional<metrics::EngineUsage>& used) {
  load_.finish(job, used);
  if (device >= 0 && device < static_cast<int>(devices_.size()) && devices_[device].running > 0)
    devices_[device].running--;
  look_at_room();
}

}  // namespace tc::daemon
