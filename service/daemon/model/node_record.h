// A daemon as a node of the cluster: what `ListNodes` shows and what its heartbeat writes to the
// store. With SQLite there is one node, this daemon; with PostgreSQL, every daemon sharing the
// database.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pipeline/core/status.h"
#include "service/daemon/model/load_model.h"
#include "service/daemon/model/node_metrics.h"

namespace tc::daemon {

struct NodeDevice {
  std::string name;  // "software", "vaapi /dev/dri/renderD128"
  std::string backend;
  int slots = 0;
  int running = 0;
  DeviceLoadView load;  // capacity, load and one job's estimate at the last heartbeat
};

struct NodeRecord {
  std::string id;  // --node-id, default the host name
  int64_t started_ms = 0;
  int64_t heartbeat_ms = 0;  // set by the store when it writes the row
  // How long since its last heartbeat, by the store's clock (the database's: never a node's own)
  // as NodeRegistry::list reads it.
  int64_t silent_ms = 0;
  // Silent longer than a lease (JobManager::nodes): its jobs are other nodes' to take, it has
  // no free slot and no "up" time.
  bool gone = false;
  std::vector<NodeDevice> devices;
  std::vector<std::string> backends;      // the devices' backends, each once
  std::vector<std::string> running_jobs;  // ids
  int free_slots() const;
};

// This daemon now, from what /metrics shows.
NodeRecord node_from_snapshot(const std::string& id, int64_t started_ms,
                              const NodeSnapshot& snapshot);

// The devices, backends and running jobs as one JSON text (the PostgreSQL row's `snapshot`),
// and back into `node`.
std::string node_details_json(const NodeRecord& node);
Status node_details_from_json(const std::string& text, NodeRecord& node);

// --node-id's default: the host name ("node" when it has none).
std::string default_node_id();

}  // namespace tc::daemon
