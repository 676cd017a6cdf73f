// `transcode presets [--presets-file FILE]... [--names]`: every preset `--preset` can name
// (service/presets/preset.h), one a line: name, version, origin, summary; --names: the names
// alone, which the completion scripts read when `--preset <TAB>` is pressed. With the client
// (service/client), `--server ADDR` lists a daemon's presets instead.
#pragma once

#include <string>
#include <vector>

#include "service/cli/commands.h"
#include "service/presets/preset.h"

namespace tc::cli {

// The presets this machine has: built-ins, $TRANSCODE_PRESETS_DIR's files, then `files`.
Result<std::vector<Preset>> load_local_presets(const std::vector<std::string>& files);

// The listing's lines on stdout: "name\tvVERSION\torigin\tsummary".
void print_presets(const std::vector<Preset>& presets);

void add_presets_command(CLI::App& root, CommandActions& actions);

}  // namespace tc::cli
