// The command table of `transcode`: every subcommand adds its CLI11 App (its options, once) and
// an action that acts on what was parsed and returns the exit code (service/common/exit_codes.h).
// `help CMD` and `completion SHELL` walk the same table.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace tc::cli {

using CommandActions = std::map<const CLI::App*, std::function<int()>>;

// `transcode help [COMMAND]` and `transcode completion bash|zsh`; add them after the others.
void add_help_commands(CLI::App& root, CommandActions& actions);

// Parses `args` (without the program name) and runs the chosen command's action. Usage errors
// go to stderr with exit 2; --help and --version to stdout with exit 0. -v/--verbose (every
// command) turns libav's own log on.
int run_command_line(CLI::App& root, const CommandActions& actions,
                     const std::vector<std::string>& args);

// Whether -v/--verbose was given to `command` or to a command above it (`transcode -v submit`):
// for `submit`, the job's own log keeps libav's informational lines (JobSpec::verbose_log).
bool verbose_given(const CLI::App& command);

}  // namespace tc::cli
