// Where a job runs on this node: a job goes to the least-loaded device that can run it and has
// room: fewer running jobs than its slots (a cap), and headroom for one more job by its measured
// load (load_model.h). Which job runs next is the store's claim (job_queue.h: priority, then
// age). Plain data, no threads: JobManager calls it under its own lock.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pipeline/hw/devices.h"
#include "pipeline/spec/job_spec.h"
#include "service/daemon/model/load_model.h"
#include "service/daemon/model/node_decisions.h"

namespace tc::daemon {

struct SchedDevice {
  BackendKind backend = BackendKind::kSoftware;
  std::string path;  // empty for software
  std::string name;  // "software", "vaapi /dev/dri/renderD128"
  int slots = 1;     // the cap: jobs at once at most, whatever the load
  int running = 0;
  DeviceLoadView load;  // what the load model says of it; filled by Scheduler::devices_now()
  std::optional<unsigned> cuda_ordinal;  // CUDA: discovery's ordinal (HwDevice::ordinal)
};

struct QueuedJob {
  std::string id;
  int priority = 0;
  int64_t seq = 0;
  BackendKind backend = BackendKind::kAuto;
  std::string device_path;  // the spec's device; empty = any
};

// The fixed slots of old, now the load model's prior (load_model_for): software runs libx264 &
// co., which use every core they get, so half the cores (at least one); a GPU's fixed-function
// engines overlap several sessions well.
int default_slots(BackendKind backend, unsigned cores);
// The cap when the `slots` setting is 0, above default_slots so that measured load decides:
// software one job per core (a job that uses little CPU lets more run), a GPU 16.
int default_slot_cap(BackendKind backend, unsigned cores);

// The software device plus every usable device of the inventory. `slots` > 0 is every
// device's cap; 0 = default_slot_cap.
std::vector<SchedDevice> devices_from_inventory(const HwInventory& inventory, int slots,
                                                unsigned cores);

// The load model of `devices` (index for index) on a node of `cores`: before a device learns
// from its jobs, one job is expected to use the share of it a fixed slot gave (`slots` > 0, or
// default_slots): software cores / slots, a GPU 100 % / slots of its busiest engine, so that a
// node that has learned nothing admits as the fixed slots did.
LoadModel load_model_for(const std::vector<SchedDevice>& devices, int slots, unsigned cores);

class Scheduler {
 public:
  // `inventory` is what `devices` were made from: a job goes where the planner, given the same
  // inventory, will run it (tc::choose_backend, the one decision).
  // `load`: the devices' load model (load_model_for); none leaves admission to the slots.
  Scheduler(HwInventory inventory, std::vector<SchedDevice> devices, LoadModel load = {});

  // The spec backends ("auto", "vaapi", ...) of the jobs this node could start now: those of
  // its devices with room. `offered_anywhere` holds the backends some live node offers
  // (this one's included): a job whose backend none offers takes a free software slot, and its
  // worker fails it with the planner's own reason, rather than waiting for ever.
  std::vector<std::string> claimable(const std::set<std::string>& offered_anywhere) const;
  // The least-loaded device with room that can run `job`, its slot taken; none when no such
  // device has room now.
  std::optional<int> place(const QueuedJob& job);
  // Where `job` runs on device `device` (an index of devices()): tc::choose_backend's choice
  // there. None when that device cannot run it: a job no device can run takes a software slot
  // (claimable) and goes to its worker unplaced, for the planner to refuse.
  std::optional<Placement> placement(const QueuedJob& job, int device) const;
  // Gives back the slot `job` held on `device`. `used`: what it used over its run (the sampler's
  // average), which the device's estimate learns from; none when it never ran.
  void release(int device, const std::string& job,
               const std::optional<metrics::EngineUsage>& used = std::nullopt);
  // A running job's last sampling interval. True when a device that had no room at the last
  // look has room now: the dispatcher should look for a job.
  bool sample(const std::string& job, const metrics::EngineUsage& live);
  // The backends of this node's devices, each once.
  std::set<std::string> offered() const;

  const std::vector<SchedDevice>& devices() const { return devices_; }
  // The devices with what the load model says of each now: capacity (capped by the slots),
  // load and one job's estimate.
  std::vector<SchedDevice> devices_now() const;

  // Jobs at once on this node at most, across its devices, whatever their slots: what its
  // memory holds (memory_budget.h); 0 = no such cap.
  void set_node_cap(int jobs) { node_cap_ = jobs; }

  // Monotonic seconds; tests drive it.
  void set_clock(std::function<double()> clock) { clock_ = std::move(clock); }

 private:
  bool can_run(const QueuedJob& job, const SchedDevice& device) const;
  std::optional<Placement> placement_on(const QueuedJob& job, const SchedDevice& device) const;
  bool has_room(size_t device) const;
  std::optional<int> least_loaded_free(const QueuedJob& job) const;
  bool has_free_slot(BackendKind backend) const;
  bool look_at_room();    // notes which devices have room; true when one has gained it
  int node_room() const;  // jobs the node cap leaves room for (INT_MAX without one)

  HwInventory inventory_;
  std::vector<SchedDevice> devices_;
  LoadModel load_;
  std::vector<bool> had_room_;  // by device, at the last look
  int node_cap_ = 0;
  std::function<double()> clock_;
};

// Keeps the devices whose backend is in `backends` (the --backends setting; empty = all), and
// the inventory's devices likewise, so that `auto` jobs are planned on what the node offers.
void keep_backends(const std::vector<std::string>& backends, HwInventory& inventory,
                   std::vector<SchedDevice>& devices);

}  // namespace tc::daemon
