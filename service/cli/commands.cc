#include "service/cli/commands.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <iostream>

extern "C" {
#include <libavutil/log.h>
}

#include "service/cli/completion.h"
#include "service/common/command_line.h"
#include "service/common/exit_codes.h"

namespace tc::cli {
namespace {

constexpr const char* kVerbose = "--verbose";

int usage_error(const std::string& message) {
  std::fprintf(stderr, "transcode: %s\n", message.c_str());
  return kExitUsage;
}

// A command's help as `transcode CMD --help` prints it, whichever command was parsed.
std::string help_of(const CLI::App& root, const CLI::App& command) {
  std::string name =
      &command == &root ? root.get_name() : root.get_name() + " " + command.get_name();
  return command.get_formatter()->make_help(&command, name, CLI::AppFormatMode::Normal);
}

const CLI::App* find_command(const CLI::App& root, const std::string& name) {
  for (const CLI::App* command : root.get_subcommands([](const CLI::App*) { return true; }))
    if (command->get_name() == name) return command;
  return nullptr;
}

std::string joined(const std::vector<std::string>& words, const char* separator) {
  std::string text;
  for (const std::string& word : words) text += (text.empty() ? "" : separator) + word;
  return text;
}

// libav logs to stderr below our one-line errors; keep it to fatal messages unless asked.
void set_library_log_level(bool verbose) {
  av_log_set_level(verbose ? AV_LOG_INFO : AV_LOG_FATAL);
  // SVT-AV1 logs to stderr itself, bypassing av_log: keep it to errors likewise.
  if (!verbose) setenv("SVT_LOG", "1", /*overwrite=*/0);
}

}  // namespace

void add_help_commands(CLI::App& root, CommandActions& actions) {
  std::vector<CLI::App*> commands = root.get_subcommands([](CLI::App*) { return true; });
  commands.push_back(&root);
  for (CLI::App* command : commands)  // unless the command gave it a meaning of its own
    if (!command->get_option_no_throw(kVerbose))
      command->add_flag("-v," + std::string(kVerbose))->description("show libav's own log");

  CLI::App* help = root.add_subcommand("help", "print a command's options: transcode help run");
  help->footer("");  // not the program's, which a new command inherits
  CLI::Option* topic = help->add_option("COMMAND", "the command")->type_name("COMMAND");
  actions[help] = [&root, topic]() -> int {
    if (!topic->count()) {
      std::cout << help_of(root, root);
      return kExitOk;
    }
    const CLI::App* command = find_command(root, topic->results().back());
    if (!command)
      return usage_error("unknown command '" + topic->results().back() +
                         "' (see transcode --help)");
    std::cout << help_of(root, *command);
    return kExitOk;
  };

  CLI::App* completion = root.add_subcommand(
      "completion", "print a completion script: source <(transcode completion bash)");
  completion->footer("");
  CLI::Option* shell = completion->add_option("SHELL", "the shell")
                           ->type_name(joined(completion_shells(), "|"))
                           ->required();
  actions[completion] = [&root, shell]() -> int {
    Result<std::string> script = completion_script(root, shell->results().back());
    if (!script.is_ok()) return usage_error(script.status().message());
    std::cout << *script;
    return kExitOk;
  };
}

int run_command_line(CLI::App& root, const CommandActions& actions,
                     const std::vector<std::string>& args) {
  Result<std::optional<std::string>> reply = parse_command_line(root, args);
  if (!reply.is_ok()) return usage_error(reply.status().message());
  if (*reply) {
    std::cout << **reply;
    return kExitOk;
  }
  std::vector<CLI::App*> selected = root.get_subcommands();
  if (selected.empty()) {
    std::cerr << help_of(root, root);
    return kExitUsage;
  }
  CLI::App* command = selected.front();
  set_library_log_level(verbose_given(*command));
  return actions.at(command)();
}

bool verbose_given(const CLI::App& command) {
  for (const CLI::App* app = &command; app; app = app->get_parent()) {
    const CLI::Option* verbose = app->get_option_no_throw(kVerbose);
    if (verbose && verbose->count() > 0) return true;
  }
  return false;
}

}  // namespace tc::cli
