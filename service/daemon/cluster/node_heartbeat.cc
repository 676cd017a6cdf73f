#include "service/daemon/cluster/node_heartbeat.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace tc::daemon {

double beat_interval_s(double lease_s) {
  return std::min(5.0, lease_s / 3);
}

NodeHeartbeat::NodeHeartbeat(JobManager& manager, std::string node_id, double interval_s)
    : manager_(manager), node_id_(std::move(node_id)), started_ms_(now_ms()) {
  first_ = beat();
  reachable_ = first_.is_ok();
  beats_.emplace(interval_s, [this] { beat_or_log(); });
}

Status NodeHeartbeat::beat() {
  return manager_.beat(node_from_snapshot(node_id_, started_ms_, manager_.node_snapshot()));
}

void NodeHeartbeat::set_health_sink(std::function<void(bool)> sink) {
  std::lock_guard lock(sink_mutex_);
  sink_ = std::move(sink);
  if (sink_) sink_(reachable_);
}

void NodeHeartbeat::beat_or_log() {
  Status status = beat();
  std::lock_guard lock(sink_mutex_);
  if (status.is_ok() != reachable_) {
    if (status.is_ok())
      spdlog::info("node {}: the job store is back", node_id_);
    else
      spdlog::warn("node {}: the job store cannot be reached: {} (NOT_SERVING until it is back)",
                   node_id_, status.message());
    reachable_ = status.is_ok();
    if (sink_) sink_(reachable_);
  } else if (!status.is_ok()) {
    spdlog::debug("node {}: beat failed: {}", node_id_, status.message());
  }
}

}  // namespace tc::daemon
