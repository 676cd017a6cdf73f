#include "service/daemon/node_heartbeat.h"

#include <spdlog/spdlog.h>

namespace tc::daemon {

NodeHeartbeat::NodeHeartbeat(JobManager& manager, std::string node_id, double interval_s)
    : manager_(manager), node_id_(std::move(node_id)), started_ms_(now_ms()) {
  first_ = beat();
  thread_ = std::thread([this, interval_s] { loop(interval_s); });
}

NodeHeartbeat::~NodeHeartbeat() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

Status NodeHeartbeat::beat() {
  return manager_.heartbeat(node_from_snapshot(node_id_, started_ms_, manager_.node_snapshot()));
}

void NodeHeartbeat::loop(double interval_s) {
  auto interval = std::chrono::duration<double>(interval_s);
  std::unique_lock lock(mutex_);
  while (!wake_.wait_for(lock, interval, [this] { return stopping_; })) {
    lock.unlock();
    if (Status status = beat(); !status.is_ok())
      spdlog::warn("node {}: heartbeat not written: {}", node_id_, status.message());
    lock.lock();
  }
}

}  // namespace tc::daemon
