// `transcode doctor`: checks this node for VA-API transcoding (service/doctor) and prints a table
// with the fix under each failure, or JSON; exit 0, 5 (no device) or 8 (a check failed).
#pragma once

#include "service/cli/commands.h"

namespace tc::cli {

void add_doctor_command(CLI::App& root, CommandActions& actions);

}  // namespace tc::cli
