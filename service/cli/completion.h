// Shell completion scripts, generated from the parser's own tables: one walk of the CLI11 App
// (commands, their options, which take a value, which take a file), so the scripts cannot drift
// from the options.
#pragma once

#include <string>
#include <vector>

#include "pipeline/core/status.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace tc::cli {

// Offers `values` for `option`'s value in every script: the names its parser takes, read from
// the parser's own table (job_spec.h choice_names), so a script cannot offer a word the parser
// refuses. Call it where the option is added; it lasts as long as the process.
void offer_values(const CLI::Option* option, std::vector<std::string> values);

// Offers the preset names for `option`'s value, read when the value is completed (`transcode
// presets --names`, run by the program the user typed): built-in and $TRANSCODE_PRESETS_DIR's,
// so a preset file added after the script was installed is offered too.
void offer_preset_names(const CLI::Option* option);

// The shells a script can be made for: "bash", "zsh", "fish".
const std::vector<std::string>& completion_shells();

// The script for `shell`; kInvalidArgument for a shell not in completion_shells().
Result<std::string> completion_script(const CLI::App& root, const std::string& shell);

}  // namespace tc::cli
