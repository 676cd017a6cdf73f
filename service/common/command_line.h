// The one argument parser of both binaries (CLI11): every option takes `--key value` and
// `--key=value`, --help and --version come from the option tables, and usage errors come back as
// a Status in the project's words ("unknown option --x", "--size: needs a value").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pipeline/core/status.h"

namespace CLI {
class App;
}

namespace tc {

// "transcode 0.9.0 (FFmpeg 5.1.6, libavcodec 59.37.100)": the product's version (the VERSION
// file) and the FFmpeg libraries this process runs with.
std::string version_line(const std::string& program);

// Sets what both binaries share: --version, help layout, unknown arguments kept for the check
// parse_command_line makes (so its message says "unknown option").
void set_up_app(CLI::App& app, const std::string& program);

// Parses `args` (without the program name) with `app` and its subcommands. Returns the text the
// user asked for with --help or --version (print it on stdout, exit 0), or nullopt to go on and
// act on the parsed options. A usage error is kInvalidArgument naming the argument.
Result<std::optional<std::string>> parse_command_line(CLI::App& app,
                                                      const std::vector<std::string>& args);

}  // namespace tc
