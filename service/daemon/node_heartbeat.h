// Keeps this daemon's node row fresh in the job store: written once before the daemon serves,
// then every few seconds from the manager's snapshot (devices, slots, running jobs). A failed
// write is logged and tried again at the next beat: a store that is down for a while must not
// stop the daemon.
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "service/daemon/job_manager.h"

namespace tc::daemon {

class NodeHeartbeat {
 public:
  // Beats once now (the error, if any, is returned by first_beat()), then every interval_s.
  NodeHeartbeat(JobManager& manager, std::string node_id, double interval_s);
  ~NodeHeartbeat();
  NodeHeartbeat(const NodeHeartbeat&) = delete;
  NodeHeartbeat& operator=(const NodeHeartbeat&) = delete;

  const Status& first_beat() const { return first_; }

 private:
  Status beat();
  void loop(double interval_s);

  JobManager& manager_;
  const std::string node_id_;
  const int64_t started_ms_;
  Status first_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace tc::daemon
