#include "service/client/client.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <iterator>
#include <memory>
#include <optional>

#include "service/client/commands.h"
#include "service/client/connection.h"
#include "service/client/daemon_presets.h"
#include "service/client/job_view.h"
#include "service/client/usage_command.h"
#include "service/common/exit_codes.h"

namespace tc::client {
namespace {

constexpr const char* kExitCodes =
    "Exit codes: 0 ok; 1 job failed (crash, stall, internal) or queue full; 2 bad request\n"
    "(invalid argument, permission denied, not found, failed precondition, unauthenticated);\n"
    "3 input; 4 unsupported; 5 device; 6 output; 7 daemon unreachable or not serving;\n"
    "130 job cancelled.";

int usage(const CLI::App& command, const std::string& message) {
  std::fprintf(stderr, "transcode %s: %s\n", command.get_name().c_str(), message.c_str());
  return kExitUsage;
}

using Action = std::function<int(const Connection& connection)>;

// Gives the command the connection options and, as its action, `run` with the connection they
// describe.
void add_action(cli::CommandActions& actions, CLI::App* command, Action run) {
  auto connection = std::make_shared<ConnectionOptions>(*command);
  actions[command] = [command, connection, run = std::move(run)] {
    Result<Connection> reached = connection->connection();
    if (!reached.is_ok()) return usage(*command, reached.status().message());
    return run(*reached);
  };
}

void add_json_flag(CLI::App* command, bool& json) {
  command->add_flag("--json", json, "print the reply as JSON");
}

// watch, get, cancel: one job ID, and `extra` for the command's own flags.
void add_job_command(CLI::App& root, cli::CommandActions& actions, const char* name,
                     const char* help, const std::function<void(CLI::App*, JobIdArgs&)>& extra,
                     int (*run)(const JobIdArgs&, const Connection&)) {
  CLI::App* command = root.add_subcommand(name, help);
  auto args = std::make_shared<JobIdArgs>();
  command->add_option("ID", args->id, "the job's id")->type_name("")->required();
  add_json_flag(command, args->json);
  extra(command, *args);
  add_action(actions, command, [args, run](const Connection& c) { return run(*args, c); });
}

Result<std::map<std::string, std::string>> parse_labels(const std::vector<std::string>& texts) {
  std::map<std::string, std::string> labels;
  for (const std::string& text : texts) {
    size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
      return Status(Code::kInvalidArgument, "--label: '" + text + "' is not KEY=VALUE");
    labels[text.substr(0, eq)] = text.substr(eq + 1);
  }
  return labels;
}

// With --jobs the jobs come whole from the file: only the flags of the command line count.
Result<cli::JobArgs> batch_flags(const CLI::App& command) {
  for (const char* positional : {"INPUT", "OUTPUT", "--output", "--job"})
    if (command.get_option(positional)->count())
      return Status(Code::kInvalidArgument,
                    "--jobs: give every input and output in the file, not on the command line");
  cli::JobArgs flags;
  flags.json = command.get_option("--json")->count() > 0;
  flags.quiet = command.get_option("--quiet")->count() > 0;
  return flags;
}

void add_submit(CLI::App& root, cli::CommandActions& actions) {
  CLI::App* command = root.add_subcommand(
      "submit",
      "queue jobs on the daemon (run's options; several inputs with -o 'out/{stem}.mp4', or "
      "--jobs FILE); prints an id a line, or --wait for them");
  auto job = std::make_shared<cli::JobOptions>(*command, cli::Inputs::kMany);
  auto args = std::make_shared<SubmitArgs>();
  const char* group = "Submit options";
  command->add_flag("--wait", args->wait, "follow the job: progress bar, then its report")
      ->group(group);
  command->add_flag("-v,--verbose")
      ->description("the job's own log (transcode logs ID) keeps libav's informational lines too")
      ->group(group);
  command->add_option("--priority", args->priority, "higher runs first (default 0)")
      ->type_name("N")
      ->group(group);
  CLI::Option* labels = command->add_option("--label", "a label of the job (repeatable)")
                            ->type_name("KEY=VALUE")
                            ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
                            ->group(group);
  command->add_option("--request-id", args->request_id, "retries with the same id make one job")
      ->type_name("ID")
      ->group(group);
  command->add_option("--webhook", args->webhook_url, "POST every state change of the job there")
      ->type_name("URL")
      ->group(group);
  command
      ->add_option("--jobs", args->jobs_file,
                   "a JSON Lines file of jobs (- for stdin), each line a --job file's object")
      ->type_name("FILE")
      ->group(group);
  add_action(actions, command, [command, job, args, labels](const Connection& c) {
    auto failure = std::make_shared<std::optional<grpc::Status>>();
    Result<cli::JobArgs> parsed = args->jobs_file.empty()
                                      ? job->job_args(daemon_preset_fallback(c, failure))
                                      : batch_flags(*command);
    if (!parsed.is_ok() && *failure) return rpc_failure(**failure);
    if (!parsed.is_ok()) return usage(*command, parsed.status().message());
    Result<std::map<std::string, std::string>> parsed_labels = parse_labels(labels->results());
    if (!parsed_labels.is_ok()) return usage(*command, parsed_labels.status().message());
    SubmitArgs submit = *args;
    submit.job = std::move(parsed).value();
    submit.labels = std::move(parsed_labels).value();
    submit.verbose_log = cli::verbose_given(*command);
    return submit_command(submit, c);
  });
}

void add_wait(CLI::App& root, cli::CommandActions& actions) {
  CLI::App* command = root.add_subcommand(
      "wait",
      "wait for jobs to end, a line each; exit 0 if all succeeded, else the first failure's");
  auto ids = std::make_shared<std::vector<std::string>>();
  auto json = std::make_shared<bool>(false);
  command->add_option("ID", *ids, "the jobs' ids")->type_name("")->required();
  add_json_flag(command, *json);
  add_action(actions, command,
             [ids, json](const Connection& c) { return wait_jobs(c, *ids, *json); });
}

void add_jobs(CLI::App& root, cli::CommandActions& actions) {
  CLI::App* command = root.add_subcommand("jobs", "list jobs, newest first");
  auto args = std::make_shared<JobsArgs>();
  command->add_option("--state", args->state, "queued, running, succeeded, failed or cancelled")
      ->type_name("STATE");
  command->add_option("--limit", args->limit, "jobs per page")->type_name("N");
  command->add_option("--page-token", args->page_token, "the next page, as the last one said")
      ->type_name("TOKEN");
  add_json_flag(command, args->json);
  add_action(actions, command, [args](const Connection& c) { return jobs_command(*args, c); });
}

void add_logs(CLI::App& root, cli::CommandActions& actions) {
  CLI::App* command = root.add_subcommand(
      "logs",
      "a job's own log: its worker's and libav's warnings and errors (and libav's info lines "
      "for a job submitted with --verbose), by attempt");
  auto args = std::make_shared<LogsArgs>();
  command->add_option("ID", args->id, "the job's id")->type_name("")->required();
  command->add_option("--attempt", args->attempt, "only this attempt's lines (default: all)")
      ->type_name("N")
      ->check(CLI::PositiveNumber);
  add_json_flag(command, args->json);
  add_action(actions, command, [args](const Connection& c) { return logs_command(*args, c); });
}

void add_caps(CLI::App& root, cli::CommandActions& actions) {
  CLI::App* command = root.add_subcommand("caps", "the daemon's devices, backends and codecs");
  auto json = std::make_shared<bool>(false);
  auto profiles = std::make_shared<bool>(false);
  add_json_flag(command, *json);
  command->add_flag("--profiles", *profiles,
                    "list the Intel GPU profiles that run --dry-run --assume-device takes "
                    "(local; no daemon)");
  add_action(actions, command, [json, profiles](const Connection& c) {
    return *profiles ? profiles_command(*json) : caps_command(*json, c);
  });
}

void add_nodes(CLI::App& root, cli::CommandActions& actions) {
  CLI::App* command = root.add_subcommand(
      "nodes", "every daemon sharing the job store: devices, free slots, running jobs");
  auto json = std::make_shared<bool>(false);
  add_json_flag(command, *json);
  add_action(actions, command, [json](const Connection& c) { return nodes_command(*json, c); });
}

// `transcode presets` (service/cli) lists a daemon's presets when --server is given: the
// connection options join its own, and its local listing stays the action without --server.
void add_presets_server(CLI::App& root, cli::CommandActions& actions) {
  CLI::App* command = root.get_subcommand("presets");
  command->description(
      "list the presets --preset can name (built-in, $TRANSCODE_PRESETS_DIR, files; a "
      "daemon's with --server)");
  auto connection = std::make_shared<ConnectionOptions>(*command);
  actions[command] = [command, connection, local = actions.at(command)] {
    if (!command->get_option("--server")->count()) return local();
    for (const char* option : {"--presets-file", "--names"})
      if (command->get_option(option)->count())
        return usage(*command, std::string(option) + ": not with --server (the daemon's presets)");
    Result<Connection> reached = connection->connection();
    if (!reached.is_ok()) return usage(*command, reached.status().message());
    return daemon_presets_command(*reached);
  };
}

// The values --weight, --max-queued, --max-running and --engine-seconds-per-day parse into;
// given_limits copies those given into a TenantArgs. Their bounds are the daemon's
// (tenant_admin.cc), so a bad number is a usage error naming its flag before any call.
struct LimitValues {
  int64_t weight = 0;
  int64_t max_queued = 0;
  int64_t max_running = 0;
  int64_t engine_seconds_per_day = 0;
};

constexpr const char* kLimitFlags[] = {"--weight", "--max-queued", "--max-running",
                                       "--engine-seconds-per-day"};

void add_limit_options(CLI::App* command, LimitValues& values) {
  command
      ->add_option("--weight", values.weight,
                   "its share of the fleet against the others' (1..1000; default 1)")
      ->type_name("N")
      ->check(CLI::Range(int64_t{1}, int64_t{1000}));
  command
      ->add_option("--max-queued", values.max_queued,
                   "most of its jobs waiting at once (0..10^9; 0: no limit)")
      ->type_name("N")
      ->check(CLI::Range(int64_t{0}, int64_t{1'000'000'000}));
  command
      ->add_option("--max-running", values.max_running,
                   "most of its jobs running at once (0..10^9; 0: no limit)")
      ->type_name("N")
      ->check(CLI::Range(int64_t{0}, int64_t{1'000'000'000}));
  command
      ->add_option("--engine-seconds-per-day", values.engine_seconds_per_day,
                   "most CPU- and engine-seconds over any 24 hours (0..10^12; 0: no limit)")
      ->type_name("N")
      ->check(CLI::Range(int64_t{0}, int64_t{1'000'000'000'000}));
}

// How many of the limit flags were given; each one's value put into `args`.
int given_limits(const CLI::App& command, const LimitValues& values, TenantArgs& args) {
  std::optional<int64_t>* targets[] = {&args.weight, &args.max_queued, &args.max_running,
                                       &args.engine_seconds_per_day};
  const int64_t parsed[] = {values.weight, values.max_queued, values.max_running,
                            values.engine_seconds_per_day};
  int given = 0;
  for (size_t i = 0; i < std::size(kLimitFlags); ++i)
    if (command.get_option(kLimitFlags[i])->count() > 0) {
      *targets[i] = parsed[i];
      ++given;
    }
  return given;
}

// `transcode tenants update NAME --weight N ...`: at least one flag, else a usage error.
void add_tenant_update(CLI::App* tenants, cli::CommandActions& children) {
  CLI::App* update =
      tenants->add_subcommand("update", "set a tenant's weight and quotas (those not given stay)");
  auto args = std::make_shared<TenantArgs>();
  auto values = std::make_shared<LimitValues>();
  update->add_option("NAME", args->name, "the tenant")->type_name("")->required();
  add_limit_options(update, *values);
  add_json_flag(update, args->json);
  auto connection = std::make_shared<ConnectionOptions>(*update);
  children[update] = [update, connection, args, values] {
    if (given_limits(*update, *values, *args) == 0)
      return usage(*update,
                   "give at least one of --weight, --max-queued, --max-running, "
                   "--engine-seconds-per-day");
    Result<Connection> reached = connection->connection();
    if (!reached.is_ok()) return usage(*update, reached.status().message());
    return tenant_update_command(*args, *reached);
  };
}

// `transcode tenants create|update|list|key-create|key-revoke|webhook-secret`: an admin's
// (docs/tenants.md).
void add_tenants(CLI::App& root, cli::CommandActions& actions) {
  CLI::App* tenants = root.add_subcommand("tenants", "tenants and their API keys (an admin's)");
  tenants->require_subcommand(1);
  // The top-level dispatch runs the command named first; this one runs its own subcommand's.
  auto children = std::make_shared<cli::CommandActions>();
  actions[tenants] = [tenants, children] {
    return children->at(tenants->get_subcommands().front())();
  };
  CLI::App* create = tenants->add_subcommand("create", "a new tenant");
  auto args = std::make_shared<TenantArgs>();
  create->add_option("NAME", args->name, "1 to 63 of a-z, 0-9, '-'")->type_name("")->required();
  create
      ->add_option("--media-root", args->media_roots,
                   "a directory its jobs may read and write: one of the daemon's media roots or "
                   "inside one (repeat for several)")
      ->type_name("DIR");
  create->add_flag("--admin", args->admin, "sees and manages every tenant's jobs");
  auto values = std::make_shared<LimitValues>();
  add_limit_options(create, *values);
  add_json_flag(create, args->json);
  add_action(*children, create, [args, values, create](const Connection& c) {
    given_limits(*create, *values, *args);
    return tenant_create_command(*args, c);
  });
  add_tenant_update(tenants, *children);

  CLI::App* list = tenants->add_subcommand(
      "list", "every tenant: its role, weight, quotas (- for none) and media roots");
  auto json = std::make_shared<bool>(false);
  add_json_flag(list, *json);
  add_action(*children, list,
             [json](const Connection& c) { return tenant_list_command(*json, c); });

  CLI::App* key_create = tenants->add_subcommand(
      "key-create", "a new API key of the tenant, printed once on stdout alone");
  auto key_args = std::make_shared<std::pair<std::string, bool>>();
  key_create->add_option("NAME", key_args->first, "the tenant")->type_name("")->required();
  add_json_flag(key_create, key_args->second);
  add_action(*children, key_create, [key_args](const Connection& c) {
    return key_create_command(key_args->first, key_args->second, c);
  });

  CLI::App* key_revoke =
      tenants->add_subcommand("key-revoke", "refuse a key from now on, on every node");
  auto revoke_args = std::make_shared<std::pair<std::string, bool>>();
  key_revoke->add_option("KEYID", revoke_args->first, "the key's id (tck_<KEYID>_...)")
      ->type_name("")
      ->required();
  add_json_flag(key_revoke, revoke_args->second);
  add_action(*children, key_revoke, [revoke_args](const Connection& c) {
    return key_revoke_command(revoke_args->first, revoke_args->second, c);
  });

  CLI::App* rotate = tenants->add_subcommand(
      "webhook-secret", "a new webhook signing secret of the tenant, printed once on stdout alone");
  auto rotate_args = std::make_shared<std::pair<std::string, bool>>();
  rotate->add_option("NAME", rotate_args->first, "the tenant")->type_name("")->required();
  add_json_flag(rotate, rotate_args->second);
  add_action(*children, rotate, [rotate_args](const Connection& c) {
    return webhook_secret_command(rotate_args->first, rotate_args->second, c);
  });
}

void add_health(CLI::App& root, cli::CommandActions& actions) {
  CLI::App* command =
      root.add_subcommand("health", "grpc.health.v1 status: exit 0 when SERVING, else 7");
  auto service = std::make_shared<std::string>();
  command->add_option("--service", *service, "a service name (default: the server)")
      ->type_name("NAME");
  add_action(actions, command,
             [service](const Connection& c) { return health_command(*service, c); });
}

}  // namespace

// `transcode usage`: measured use per tenant and resource (docs/tenants.md, Usage).
void add_usage(CLI::App& root, cli::CommandActions& actions) {
  CLI::App* command = root.add_subcommand(
      "usage", "the tenants' measured CPU- and engine-seconds over a period (default: 30 days)");
  auto args = std::make_shared<UsageArgs>();
  command->add_option("--tenant", args->tenant, "this tenant's (default: your own, or every one)")
      ->type_name("T");
  command->add_option("--since", args->since, "RFC 3339 time or a duration back (24h, 7d)")
      ->type_name("WHEN");
  command->add_option("--until", args->until, "RFC 3339 time or a duration back (default: now)")
      ->type_name("WHEN");
  add_json_flag(command, args->json);
  add_action(actions, command, [args](const Connection& c) { return usage_command(*args, c); });
}

void add_client_commands(CLI::App& root, cli::CommandActions& actions) {
  add_submit(root, actions);
  add_job_command(
      root, actions, "watch", "follow a job: progress bar, then its report",
      [](CLI::App* command, JobIdArgs& args) {
        command->add_flag("-q,--quiet", args.quiet, "no progress bar");
        command
            ->add_option("--progress", args.progress,
                         "bar (default: a progress bar on a terminal) or json (a JSON object a "
                         "line on stdout: state, frames, fps, media_time_s, percent, eta_s; then "
                         "the job on one line)")
            ->type_name(cli::progress_mode_label());
      },
      watch_command);
  add_wait(root, actions);
  add_job_command(
      root, actions, "get", "a job's state, times, error or result", [](CLI::App*, JobIdArgs&) {},
      get_command);
  add_jobs(root, actions);
  add_job_command(
      root, actions, "cancel", "stop a job (SIGTERM to its worker, then SIGKILL)",
      [](CLI::App* command, JobIdArgs& args) {
        command->add_flag("--wait", args.wait, "wait until the job has ended");
      },
      cancel_command);
  add_logs(root, actions);
  add_caps(root, actions);
  add_nodes(root, actions);
  add_presets_server(root, actions);
  add_tenants(root, actions);
  add_usage(root, actions);
  add_health(root, actions);
  root.footer(kExitCodes);
}

}  // namespace tc::client
