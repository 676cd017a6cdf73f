// The job store's node role: the nodes that share it, each by its beat (node_heartbeat.h).
// With SQLite there is one, this daemon; with PostgreSQL, every daemon of the cluster (README,
// Cluster), judged by the database's one clock.
#pragma once

#include <vector>

#include "pipeline/core/status.h"
#include "service/daemon/model/node_record.h"

namespace tc::daemon {

class NodeRegistry {
 public:
  virtual ~NodeRegistry() = default;

  // Writes this daemon's node row (its heartbeat; heartbeat_ms is the store's clock). An error:
  // the store is not taking writes, and the daemon says NOT_SERVING until a beat goes through.
  virtual Status heartbeat(const NodeRecord& node) = 0;
  // Every node sharing the store, by id: with SQLite, the one that last beat.
  virtual Result<std::vector<NodeRecord>> list() = 0;
  // Drops the rows of nodes silent for longer than `silent_ms` (by the store's clock).
  virtual Status forget_silent(int64_t silent_ms) = 0;
};

}  // namespace tc::daemon
