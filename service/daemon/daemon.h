// `transcoded` in daemon mode: configuration, store, scheduler, server, and the shutdown
// sequence on SIGTERM/SIGINT. Returns the process exit code.
#pragma once

#include <string>
#include <vector>

#include "service/daemon/config.h"
#include "service/daemon/model/node_decisions.h"

namespace tc::daemon {

int run_daemon(const std::vector<std::string>& args);

// What every job's worker runs under (node_decisions.h), from the node's settings: decided here
// once, handed on by the dispatcher with each job. Makes the GPU kernel cache under state_dir.
// The device inventory (devices_json) is added once discovered.
NodeSettings node_settings(const DaemonConfig& config);

}  // namespace tc::daemon
