// `transcode`: one-off transcodes in-process (`run`), and the daemon's client (other commands).
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "service/cli/commands.h"
#include "service/cli/presets_command.h"
#include "service/common/command_line.h"
#include "service/common/process_exit.h"
#include "service/transcode/doctor_command.h"
#include "service/transcode/run_command.h"
#ifdef TC_WITH_GRPC
#include "service/client/client.h"
#endif

int main(int argc, char** argv) {
  CLI::App app(
      "Hardware video transcoding: `run` transcodes in this process; the other commands talk to "
      "the transcoded daemon.");
  tc::set_up_app(app, "transcode");
  // One command per call: a later command name is an argument (`transcode help run`).
  app.require_subcommand(0, 1);
  tc::cli::CommandActions actions;
  tc::cli::add_run_command(app, actions);
  tc::cli::add_doctor_command(app, actions);
  tc::cli::add_presets_command(app, actions);
#ifdef TC_WITH_GRPC
  tc::client::add_client_commands(app, actions);
#else
  app.footer("Built without gRPC: the daemon's client commands are not available.");
#endif
  tc::cli::add_help_commands(app, actions);
  return tc::end_process(
      tc::cli::run_command_line(app, actions, std::vector<std::string>(argv + 1, argv + argc)));
}
