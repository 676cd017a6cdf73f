// Keeps this daemon's node row fresh in the job store: written once before the daemon serves,
// then every few seconds from the manager's snapshot (devices, slots, running jobs). A failed
// write is logged and tried again at the next beat: a store that is down for a while must not
// stop the daemon.
#pragma once

#include <optional>
#include <string>

#include "service/daemon/job_manager.h"
#include "service/daemon/periodic_thread.h"

namespace tc::daemon {

class NodeHeartbeat {
 public:
  // Beats once now (the error, if any, is returned by first_beat()), then every interval_s.
  NodeHeartbeat(JobManager& manager, std::string node_id, double interval_s);
  NodeHeartbeat(const NodeHeartbeat&) = delete;
  NodeHeartbeat& operator=(const NodeHeartbeat&) = delete;

  const Status& first_beat() const { return first_; }

 private:
  Status beat();
  void beat_or_log();

  JobManager& manager_;
  const std::string node_id_;
  const int64_t started_ms_;
  Status first_;
  std::optional<PeriodicThread> beats_;  // last: stops before the rest goes
};

}  // namespace tc::daemon
