// Where a job runs on this node: devices with concurrency slots; a job goes to the least-loaded
// device that can run it. Which job runs next is the store's claim (job_store.h: priority, then
// age). Plain data, no threads: JobManager calls it under its own lock.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pipeline/hw/devices.h"
#include "pipeline/spec/job_spec.h"

namespace tc::daemon {

struct SchedDevice {
  BackendKind backend = BackendKind::kSoftware;
  std::string path;  // empty for software
  std::string name;  // "software", "vaapi /dev/dri/renderD128"
  int slots = 1;
  int running = 0;
};

struct QueuedJob {
  std::string id;
  int priority = 0;
  int64_t seq = 0;
  BackendKind backend = BackendKind::kAuto;
  std::string device_path;  // the spec's device; empty = any
};

// Default slots: software runs libx264 & co., which use every core they get, so half the
// cores (at least one); a GPU's fixed-function engines overlap several sessions well.
int default_slots(BackendKind backend, unsigned cores);

// The software device plus every usable device of the inventory. `slots` > 0 overrides.
std::vector<SchedDevice> devices_from_inventory(const HwInventory& inventory, int slots,
                                                unsigned cores);

class Scheduler {
 public:
  // `inventory` is what `devices` were made from: a job goes where the planner, given the same
  // inventory, will run it (tc::choose_backend, the one decision).
  Scheduler(HwInventory inventory, std::vector<SchedDevice> devices)
      : inventory_(std::move(inventory)), devices_(std::move(devices)) {}

  // The spec backends ("auto", "vaapi", ...) of the jobs this node could start now: those of
  // its devices with a free slot. `offered_anywhere` holds the backends some live node offers
  // (this one's included): a job whose backend none offers takes a free software slot, and its
  // worker fails it with the planner's own reason, rather than waiting for ever.
  std::vector<std::string> claimable(const std::set<std::string>& offered_anywhere) const;
  // The least-loaded device with a free slot that can run `job`, its slot taken; none when no
  // such device has a free slot now.
  std::optional<int> place(const QueuedJob& job);
  // Gives back the slot a job held.
  void release(int device);
  // The backends of this node's devices, each once.
  std::set<std::string> offered() const;

  const std::vector<SchedDevice>& devices() const { return devices_; }

 private:
  bool can_run(const QueuedJob& job, const SchedDevice& device) const;
  std::optional<int> least_loaded_free(const QueuedJob& job) const;
  bool has_free_slot(BackendKind backend) const;

  HwInventory inventory_;
  std::vector<SchedDevice> devices_;
};

// Keeps the devices whose backend is in `backends` (the --backends setting; empty = all), and
// the inventory's devices likewise, so that `auto` jobs are planned on what the node offers.
void keep_backends(const std::vector<std::string>& backends, HwInventory& inventory,
                   std::vector<SchedDevice>& devices);

}  // namespace tc::daemon
