// `transcode presets [--presets-file FILE]...`: every preset `--preset` can name (preset.h), one
// a line: name, version, origin, summary.
#pragma once

#include "service/cli/commands.h"

namespace tc::cli {

void add_presets_command(CLI::App& root, CommandActions& actions);

}  // namespace tc::cli
