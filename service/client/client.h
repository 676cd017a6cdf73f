// The `transcode` subcommands that talk to the daemon: submit, watch, get, jobs, cancel, caps,
// health. Each adds its options to the command table; its action returns the process exit code
// (service/common/exit_codes.h).
#pragma once

#include "service/cli/commands.h"

namespace tc::client {

void add_client_commands(CLI::App& root, cli::CommandActions& actions);

}  // namespace tc::client
