// `transcode run`: a one-off transcode in this process.
#pragma once

#include "service/cli/commands.h"

namespace tc::cli {

void add_run_command(CLI::App& root, CommandActions& actions);

}  // namespace tc::cli
