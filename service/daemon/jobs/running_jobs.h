// The attempts running on this node, one job thread each (attempt_run.h). The registry's lock
// guards its map; each attempt's own lock guards its live record (progress, engines), which
// the RPCs overlay on the store's row. Neither lock is ever held over the store.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "pipeline/hw/devices.h"
#include "service/daemon/model/job_record.h"
#include "service/daemon/model/node_metrics.h"
#include "service/daemon/store/job_store.h"
#include "service/daemon/worker/worker_supervisor.h"

namespace tc::daemon {

// One attempt of a job on this node, from its claim to the end of its thread.
struct Attempt {
  // Fixed before its thread starts.
  std::string id;
  int number = 0;        // the job's attempt
  RowState row;          // what the store holds for it: every write expects it
  int device_index = 0;  // the scheduler's device it holds a slot on (JobRecord::device: its name)
  BackendKind backend = BackendKind::kSoftware;  // the device's
  std::optional<unsigned> cuda_ordinal;          // a CUDA device's, for NVML
  std::string device_name;
  std::thread thread;
  std::atomic<int> stop{kStopNone};
  std::atomic<bool> done{false};

  JobRecord record() const;  // as published now
  void set_record(JobRecord job);
  void set_progress(const Progress& progress);
  void set_engines(const metrics::EngineUsage& live);
  // Its use so far (measured_usage of the sampler's average), on its running attempt's entry:
  // stored with its progress, so that fair share sees a long job's use before it ends.
  void set_usage_so_far(ResourceSeconds usage);

 private:
  mutable std::mutex mutex_;
  JobRecord job_;
};

class RunningJobs {
 public:
  // Registers `attempt` (its record set) before its thread starts.
  Attempt& add(std::unique_ptr<Attempt> attempt);
  // A running job's live progress and engines onto `job` as the store had it.
  void overlay(JobRecord& job) const;
  bool runs(const std::string& id) const;  // an attempt of it runs here, not yet ended
  // Asks the attempt of `id` to stop for `reason` (worker_supervisor.h), unless it ended or was
  // asked already; logs `why` when it asks.
  void stop(const std::string& id, int reason, const char* why);
  void stop_all(int reason);
  std::map<std::string, int> attempts() const;  // those not ended: id -> attempt
  std::vector<NodeSnapshot::RunningJob> live() const;

  // The attempt's thread is about to return.
  void ended(Attempt& attempt);
  // Waits until every attempt ended, or for `timeout_s` (< 0: no limit); true when all have.
  bool wait_all_ended(double timeout_s);
  // Joins the threads of the attempts that ended and forgets them.
  void reap();

 private:
  bool all_ended() const;  // mutex_ held

  mutable std::mutex mutex_;
  std::condition_variable ended_;
  std::map<std::string, std::unique_ptr<Attempt>> attempts_;
};

}  // namespace tc::daemon
