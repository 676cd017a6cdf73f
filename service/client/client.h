// The `transcode` subcommands that talk to the daemon: submit, watch, get, jobs, cancel, caps,
// health. Returns the process exit code (service/common/exit_codes.h).
#pragma once

#include <string>
#include <vector>

namespace tc::client {

bool is_client_command(const std::string& command);
int client_main(const std::string& command, const std::vector<std::string>& args);
std::string client_help();

}  // namespace tc::client
