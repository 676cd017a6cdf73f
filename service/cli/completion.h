// Shell completion scripts, generated from the parser's own tables: one walk of the CLI11 App
// (commands, their options, which take a value, which take a file), so the scripts cannot drift
// from the options.
#pragma once

#include <string>
#include <vector>

#include "pipeline/core/status.h"

namespace CLI {
class App;
}

namespace tc::cli {

// The shells a script can be made for: "bash", "zsh".
const std::vector<std::string>& completion_shells();

// The script for `shell`; kInvalidArgument for a shell not in completion_shells().
Result<std::string> completion_script(const CLI::App& root, const std::string& shell);

}  // namespace tc::cli
