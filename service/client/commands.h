// One function per `transcode` client subcommand, given its parsed arguments and the connection.
// Each returns the process exit code.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "service/cli/job_args.h"
#include "service/client/connection.h"

namespace tc::client {

// watch, get, cancel: one job.
struct JobIdArgs {
  std::string id;
  bool json = false;
  bool quiet = false;  // watch: no progress bar
  bool wait = false;   // cancel: wait for the job to end
};

struct JobsArgs {
  std::string state;  // "" = all
  int limit = 0;      // 0 = the daemon's page size
  std::string page_token;
  bool json = false;
};

struct SubmitArgs {
  cli::JobArgs job;
  bool wait = false;
  int priority = 0;
  std::map<std::string, std::string> labels;
  std::string request_id;
  std::string webhook_url;
};

int submit_command(const SubmitArgs& args, const Connection& connection);
int watch_command(const JobIdArgs& args, const Connection& connection);
int get_command(const JobIdArgs& args, const Connection& connection);
int jobs_command(const JobsArgs& args, const Connection& connection);
int cancel_command(const JobIdArgs& args, const Connection& connection);
int caps_command(bool json, const Connection& connection);
int nodes_command(bool json, const Connection& connection);
// The Intel device profiles --assume-device takes (no daemon needed).
int profiles_command(bool json);
int health_command(const std::string& service, const Connection& connection);

// Follows a job to its end: a progress bar (unless quiet or json), then the report (or the
// job as JSON). Returns exit_code_for_job of the final job.
int watch_job(const Connection& connection, const std::string& id, bool quiet, bool json);

}  // namespace tc::client
