#include "service/cli/presets_command.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>

#include "service/cli/preset.h"
#include "service/common/exit_codes.h"

namespace tc::cli {

void add_presets_command(CLI::App& root, CommandActions& actions) {
  CLI::App* command = root.add_subcommand(
      "presets", "list the presets --preset can name (built-in, $TRANSCODE_PRESETS_DIR, files)");
  CLI::Option* files = command->add_option("--presets-file", "a preset file (JSON), repeatable")
                           ->type_name("FILE")
                           ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  actions[command] = [files]() -> int {
    Result<std::vector<Preset>> presets = load_presets(files->results());
    if (!presets.is_ok()) {
      std::fprintf(stderr, "transcode: %s\n", presets.status().message().c_str());
      return kExitUsage;
    }
    for (const Preset& preset : *presets)
      std::cout << preset.name << "\tv" << preset.version << "\t" << preset.origin << "\t"
                << preset.summary << "\n";
    return kExitOk;
  };
}

}  // namespace tc::cli
