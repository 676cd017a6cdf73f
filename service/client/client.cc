#include "service/client/client.h"

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "service/cli/job_args.h"
#include "service/client/commands.h"
#include "service/client/connection.h"
#include "service/common/exit_codes.h"

namespace tc::client {
namespace {

constexpr const char* kCommands[] = {"submit", "watch", "get", "jobs", "cancel", "caps", "health"};

bool wants_help(const std::vector<std::string>& args) {
  return std::any_of(args.begin(), args.end(),
                     [](const std::string& a) { return a == "--help" || a == "-h"; });
}

}  // namespace

bool is_client_command(const std::string& command) {
  return std::find(std::begin(kCommands), std::end(kCommands), command) != std::end(kCommands);
}

std::string client_help() {
  return R"(  submit INPUT OUTPUT [run's options] [--wait] [--json] [--priority N] [--label K=V]
                               [--request-id ID]   queue a job on the daemon; prints its id
  watch ID [--json] [--quiet]  follow a job: progress bar, then its report
  get ID [--json]              a job's state, times, error or result
  jobs [--state S] [--limit N] [--page-token T] [--json]   list jobs, newest first
  cancel ID [--wait]           stop a job (SIGTERM to its worker, then SIGKILL)
  caps [--json]                the daemon's devices, backends and codecs
  health [--service NAME]      grpc.health.v1 status: exit 0 when SERVING

)" + connection_help() +
         R"(
Exit codes: 0 ok; 1 job failed (crash, stall, internal) or queue full; 2 bad request (invalid
argument, permission denied, not found, failed precondition, unauthenticated); 3 input; 4
unsupported; 5 device; 6 output; 7 daemon unreachable or not serving; 130 job cancelled.
)";
}

int client_main(const std::string& command, const std::vector<std::string>& args) {
  if (wants_help(args)) {
    std::cout << "usage: transcode " << command << " ...\n" << client_help();
    if (command == "submit") std::cout << "\n" << cli::job_args_help();
    return kExitOk;
  }
  std::vector<std::string> rest = args;
  Result<Connection> connection = take_connection_options(rest);
  if (!connection.is_ok()) {
    std::fprintf(stderr, "transcode %s: %s\n", command.c_str(),
                 connection.status().message().c_str());
    return kExitUsage;
  }
  if (command == "submit") return submit_command(rest, *connection);
  if (command == "watch") return watch_command(rest, *connection);
  if (command == "get") return get_command(rest, *connection);
  if (command == "jobs") return jobs_command(rest, *connection);
  if (command == "cancel") return cancel_command(rest, *connection);
  if (command == "caps") return caps_command(rest, *connection);
  if (command == "health") return health_command(rest, *connection);
  return kExitUsage;
}

}  // namespace tc::client
