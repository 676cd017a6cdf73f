// This daemon's beat in the job store: written once before the daemon serves, then every
// interval: its node row (devices, slots, running jobs), its leases renewed, orphaned jobs taken
// over (JobManager::beat). A failed beat is logged and tried again at the next: a store that is
// down for a while must not stop the daemon, but the health sink hears of it (NOT_SERVING)
// until a beat succeeds again.
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "service/daemon/common/periodic_thread.h"
#include "service/daemon/jobs/job_manager.h"

namespace tc::daemon {

class NodeHeartbeat {
 public:
  // Beats once now (the error, if any, is returned by first_beat()), then every interval_s.
  NodeHeartbeat(JobManager& manager, std::string node_id, double interval_s);
  NodeHeartbeat(const NodeHeartbeat&) = delete;
  NodeHeartbeat& operator=(const NodeHeartbeat&) = delete;

  const Status& first_beat() const { return first_; }
  // Told when a beat finds the store reachable or not, as it changes; called at once with the
  // last answer. An empty sink stops the telling (shutdown).
  void set_health_sink(std::function<void(bool store_reachable)> sink);

 private:
  Status beat();
  void beat_or_log();

  JobManager& manager_;
  const std::string node_id_;
  const int64_t started_ms_;
  Status first_;
  std::mutex sink_mutex_;
  std::function<void(bool)> sink_;
  bool reachable_ = true;
  std::optional<PeriodicThread> beats_;  // last: stops before the rest goes
};

// How often a node beats: a third of its lease (renewed twice before it could run out), at
// most every 5 s (ListNodes is that fresh).
double beat_interval_s(double lease_s);

}  // namespace tc::daemon
