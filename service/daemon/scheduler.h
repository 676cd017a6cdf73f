// Which queued job runs next, and where. A priority queue (higher priority first, then oldest)
// over devices with concurrency slots; a job goes to the least-loaded device that can run it.
// Plain data, no threads: JobManager calls it under its own lock.
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

struct Assignment {
  QueuedJob job;
  int device = 0;  // index into devices()
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
  Scheduler(HwInventory inventory, std::vector<SchedDevice> devices, int max_queue)
      : inventory_(std::move(inventory)), devices_(std::move(devices)), max_queue_(max_queue) {}

  // False when the queue is full; `force` ignores the bound (jobs recovered at start-up).
  bool enqueue(const QueuedJob& job, bool force = false);
  bool remove(const std::string& id);
  // The best queued job that a device has a free slot for, taking the slot; none when no job
  // can start now.
  std::optional<Assignment> next();
  // Gives back the slot a job held.
  void release(int device);

  size_t queued() const { return queue_.size(); }
  int max_queue() const { return max_queue_; }
  const std::vector<SchedDevice>& devices() const { return devices_; }

 private:
  struct Order {
    bool operator()(const QueuedJob& a, const QueuedJob& b) const {
      if (a.priority != b.priority) return a.priority > b.priority;
      return a.seq < b.seq;
    }
  };
  bool can_run(const QueuedJob& job, const SchedDevice& device) const;
  std::optional<int> least_loaded_free(const QueuedJob& job) const;

  HwInventory inventory_;
  std::vector<SchedDevice> devices_;
  std::set<QueuedJob, Order> queue_;
  int max_queue_;
};

}  // namespace tc::daemon
