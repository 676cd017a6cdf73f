#include "service/daemon/node_heartbeat.h"

#include <spdlog/spdlog.h>

namespace tc::daemon {

NodeHeartbeat::NodeHeartbeat(JobManager& manager, std::string node_id, double interval_s)
    : manager_(manager), node_id_(std::move(node_id)), started_ms_(now_ms()) {
  first_ = beat();
  beats_.emplace(interval_s, [this] { beat_or_log(); });
}

Status NodeHeartbeat::beat() {
  return manager_.heartbeat(node_from_snapshot(node_id_, started_ms_, manager_.node_snapshot()));
}

void NodeHeartbeat::beat_or_log() {
  if (Status status = beat(); !status.is_ok())
    spdlog::warn("node {}: heartbeat not written: {}", node_id_, status.message());
}

}  // namespace tc::daemon
