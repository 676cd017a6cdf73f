// Two daemons under one node id (the default is the host name: two pods on one host network, a
// cloned VM) would take each other's running jobs for their own previous process's at start-up.
// A daemon therefore looks before it takes anything: a row of its id whose heartbeat is live
// (by the store's clock) and still advancing belongs to another daemon, and the start is
// refused as a configuration error naming the id. A restart of the same node after its old
// process died waits, at most a lease, for that row's heartbeat to lapse, then starts.
#pragma once

#include <string>

#include "pipeline/core/status.h"
#include "service/daemon/store/node_registry.h"

namespace tc::daemon {

// OK when no other daemon beats under `node_id`; kInvalidArgument (not retryable) naming it
// when one does. `lease_s`: how long a silent row is still taken as live.
Status check_node_id_free(NodeRegistry& nodes, const std::string& node_id, double lease_s);

}  // namespace tc::daemon
