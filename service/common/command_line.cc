#include "service/common/command_line.h"

#include <CLI/CLI.hpp>

#include <algorithm>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
}

namespace tc {
namespace {

Status usage(std::string message) {
  return {Code::kInvalidArgument, std::move(message)};
}

// "transcode run": the selected chain of commands, for pointing at the right --help.
std::string command_path(const CLI::App& app) {
  std::string path = app.get_name();
  for (const CLI::App* at = &app; !at->get_subcommands().empty();) {
    at = at->get_subcommands().front();
    path += " " + at->get_name();
  }
  return path;
}

// Every command keeps what it did not recognise (allow_extras), so that this one check words the
// error: an unknown option, an unknown command, or a positional argument too many.
Status check_leftovers(const CLI::App& root) {
  std::string help = " (see " + command_path(root) + " --help)";
  for (const CLI::App* app = &root; app;) {
    std::vector<std::string> left = app->remaining();
    if (!left.empty()) {
      const std::string& first = left.front();
      if (first.size() > 1 && first[0] == '-')
        return usage("unknown option " + first.substr(0, first.find('=')) + help);
      if (app == &root && !root.get_subcommands({}).empty())
        return usage("unknown command '" + first + "'" + help);
      return usage("unexpected argument '" + first + "'" + help);
    }
    std::vector<CLI::App*> selected = app->get_subcommands();
    app = selected.empty() ? nullptr : selected.front();
  }
  return {};
}

// CLI11's words for a missing value ("--size: 1 required WxH missing") say less than ours.
std::string mismatch_message(const CLI::ArgumentMismatch& error) {
  std::string text = error.what();
  size_t colon = text.find(": ");
  if (colon != std::string::npos && text.find("required") != std::string::npos)
    return text.substr(0, colon) + ": needs a value";
  return text;
}

}  // namespace

std::string version_line(const std::string& program) {
  unsigned codec = avcodec_version();
  return program + " " + TC_VERSION + " (FFmpeg " + av_version_info() + ", libavcodec " +
         std::to_string(codec >> 16) + "." + std::to_string((codec >> 8) & 0xff) + "." +
         std::to_string(codec & 0xff) + ")";
}

void set_up_app(CLI::App& app, const std::string& program) {
  app.name(program);
  app.set_version_flag("--version", version_line(program));
  app.get_formatter()->column_width(28);
  app.allow_extras();
  // An option given twice keeps its last value, as people expect when they append to a command.
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

Result<std::optional<std::string>> parse_command_line(CLI::App& app,
                                                      const std::vector<std::string>& args) {
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 pops from the back
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    return std::optional<std::string>(app.help());
  } catch (const CLI::CallForVersion& version) {
    return std::optional<std::string>(std::string(version.what()) + "\n");
  } catch (const CLI::ArgumentMismatch& error) {
    return usage(mismatch_message(error));
  } catch (const CLI::ParseError& error) {
    return usage(error.what());
  }
  TC_RETURN_IF_ERROR(check_leftovers(app));
  return std::optional<std::string>();
}

}  // namespace tc
