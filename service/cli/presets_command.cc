#include "service/cli/presets_command.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "service/common/exit_codes.h"

namespace tc::cli {

Result<std::vector<Preset>> load_local_presets(const std::vector<std::string>& files) {
  const char* dir = std::getenv("TRANSCODE_PRESETS_DIR");
  return load_presets(dir ? dir : "", files);
}

void print_presets(const std::vector<Preset>& presets) {
  for (const Preset& preset : presets)
    std::cout << preset.name << "\tv" << preset.version << "\t" << preset.origin << "\t"
              << preset.summary << "\n";
}

void add_presets_command(CLI::App& root, CommandActions& actions) {
  CLI::App* command = root.add_subcommand(
      "presets", "list the presets --preset can name (built-in, $TRANSCODE_PRESETS_DIR, files)");
  CLI::Option* files = command->add_option("--presets-file", "a preset file (JSON), repeatable")
                           ->type_name("FILE")
                           ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  CLI::Option* names = command->add_flag("--names")->description("the names alone, one a line");
  actions[command] = [files, names]() -> int {
    Result<std::vector<Preset>> presets = load_local_presets(files->results());
    if (!presets.is_ok()) {
      std::fprintf(stderr, "transcode: %s\n", presets.status().message().c_str());
      return kExitUsage;
    }
    if (names->count())
      for (const Preset& preset : *presets) std::cout << preset.name << "\n";
    else
      print_presets(*presets);
    return kExitOk;
  };
}

}  // namespace tc::cli
