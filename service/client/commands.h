// One function per `transcode` client subcommand, given its parsed arguments and the connection.
// Each returns the process exit code.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "service/cli/job_args.h"
#include "service/cli/progress_json.h"
#include "service/client/connection.h"

namespace tc::client {

// watch, get, cancel: one job.
struct JobIdArgs {
  std::string id;
  bool json = false;
  bool quiet = false;            // watch: no progress bar
  bool wait = false;             // cancel: wait for the job to end
  std::string progress = "bar";  // watch: bar or json (--progress)
};

struct JobsArgs {
  std::string state;  // "" = all
  int limit = 0;      // 0 = the daemon's page size
  std::string page_token;
  bool json = false;
};

struct LogsArgs {
  std::string id;
  int attempt = 0;  // 0 = every attempt
  bool json = false;
};

struct SubmitArgs {
  cli::JobArgs job;
  std::string jobs_file;  // --jobs: a JSON Lines file of jobs, "-" for stdin
  bool wait = false;
  int priority = 0;
  std::map<std::string, std::string> labels;
  std::string request_id;
  std::string webhook_url;
  bool verbose_log = false;  // -v/--verbose: every job's own log keeps libav's info lines
};

// `transcode tenants create NAME`.
struct TenantArgs {
  std::string name;
  std::vector<std::string> media_roots;
  bool admin = false;
  // The weight and quotas given on the command line; nullopt: not given (create: the daemon's
  // default, weight 1 and no quota; update: kept).
  std::optional<int64_t> weight;
  std::optional<int64_t> max_queued;
  std::optional<int64_t> max_running;
  std::optional<int64_t> engine_seconds_per_day;
  bool json = false;
};

int submit_command(const SubmitArgs& args, const Connection& connection);
int watch_command(const JobIdArgs& args, const Connection& connection);
// `transcode wait ID...`: every job watched at once over one connection; a line per job as it
// ends. 0 when all succeeded, else the exit code of the first failed one in `ids`' order.
int wait_jobs(const Connection& connection, const std::vector<std::string>& ids, bool json);
int get_command(const JobIdArgs& args, const Connection& connection);
int jobs_command(const JobsArgs& args, const Connection& connection);
int cancel_command(const JobIdArgs& args, const Connection& connection);
// `transcode logs`: the job's own log lines (GetJobLogs), a line each, or the reply as JSON.
int logs_command(const LogsArgs& args, const Connection& connection);
int caps_command(bool json, const Connection& connection);
int nodes_command(bool json, const Connection& connection);
// `transcode tenants create|list|key-create|key-revoke` (tenants_command.cc).
int tenant_create_command(const TenantArgs& args, const Connection& connection);
// Sets the weight and quotas `args` gives (at least one: the caller checked).
int tenant_update_command(const TenantArgs& args, const Connection& connection);
int tenant_list_command(bool json, const Connection& connection);
// Prints the new key alone on stdout (its id and tenant on stderr).
int key_create_command(const std::string& tenant, bool json, const Connection& connection);
// Prints the tenant's new webhook secret alone on stdout.
int webhook_secret_command(const std::string& tenant, bool json, const Connection& connection);
int key_revoke_command(const std::string& key_id, bool json, const Connection& connection);
// The Intel device profiles --assume-device takes (no daemon needed).
int profiles_command(bool json);
int health_command(const std::string& service, const Connection& connection);

// Follows a job to its end: a progress bar (unless quiet or json), then the report (or the
// job as JSON). ProgressMode::kJson: a JSON line per event instead (cli/progress_json.h), then
// the job as JSON on one line. Returns exit_code_for_job of the final job.
int watch_job(const Connection& connection, const std::string& id, bool quiet, bool json,
              cli::ProgressMode mode = cli::ProgressMode::kBar);

}  // namespace tc::client
