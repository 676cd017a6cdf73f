// One function per `transcode` client subcommand. `args` excludes the command name and the
// connection options (already taken). Each returns the process exit code.
#pragma once

#include <string>
#include <vector>

#include "service/client/connection.h"

namespace tc::client {

int submit_command(std::vector<std::string> args, const Connection& connection);
int watch_command(const std::vector<std::string>& args, const Connection& connection);
int get_command(const std::vector<std::string>& args, const Connection& connection);
int jobs_command(const std::vector<std::string>& args, const Connection& connection);
int cancel_command(const std::vector<std::string>& args, const Connection& connection);
int caps_command(const std::vector<std::string>& args, const Connection& connection);
int health_command(const std::vector<std::string>& args, const Connection& connection);

// Follows a job to its end: a progress bar (unless quiet or json), then the report (or the
// job as JSON). Returns exit_code_for_job of the final job.
int watch_job(const Connection& connection, const std::string& id, bool quiet, bool json);

}  // namespace tc::client
