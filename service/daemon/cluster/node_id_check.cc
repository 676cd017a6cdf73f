#include "service/daemon/cluster/node_id_check.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <optional>
#include <thread>

#include "service/daemon/store/job_queue.h"

namespace tc::daemon {
namespace {

Result<std::optional<NodeRecord>> find_node(NodeRegistry& nodes, const std::string& node_id) {
  TC_ASSIGN_OR_RETURN(std::vector<NodeRecord> all, nodes.list());
  for (NodeRecord& node : all)
    if (node.id == node_id) return std::optional<NodeRecord>(std::move(node));
  return std::optional<NodeRecord>();
}

}  // namespace

Status check_node_id_free(NodeRegistry& nodes, const std::string& node_id, double lease_s) {
  const int64_t live_ms = lease_ms(lease_s);
  TC_ASSIGN_OR_RETURN(std::optional<NodeRecord> seen, find_node(nodes, node_id));
  if (!seen || seen->silent_ms > live_ms) return {};
  spdlog::info(
      "node {}: its row beat {} ms ago: waiting for it to lapse (a restart) or beat "
      "again (another daemon with this id)",
      node_id, seen->silent_ms);
  // This daemon has written nothing yet: a heartbeat that moves is another daemon's.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(live_ms);
  while (std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    TC_ASSIGN_OR_RETURN(std::optional<NodeRecord> now, find_node(nodes, node_id));
    if (!now || now->silent_ms > live_ms) return {};
    if (now->heartbeat_ms != seen->heartbeat_ms)
      return Status(Code::kInvalidArgument,
                    "node id '" + node_id +
                        "' is in use by another live daemon on this store (its heartbeat goes "
                        "on): give each daemon its own node_id (--node-id)");
  }
  return {};
}

}  // namespace tc::daemon
