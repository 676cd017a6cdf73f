// `transcoded` in daemon mode: configuration, store, scheduler, server, and the shutdown
// sequence on SIGTERM/SIGINT. Returns the process exit code.
#pragma once

#include <string>
#include <vector>

namespace tc::daemon {

int run_daemon(const std::vector<std::string>& args);

}  // namespace tc::daemon
