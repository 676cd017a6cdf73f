#include "service/cli/run_command.h"

#include <CLI/CLI.hpp>

#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>

extern "C" {
#include <libavutil/log.h>
}

#include "pipeline/exec/executor.h"
#include "service/cli/job_args.h"
#include "service/cli/progress_bar.h"
#include "service/common/exit_codes.h"

namespace tc::cli {
namespace {

std::atomic<bool> g_cancel{false};

void on_signal(int) {
  g_cancel.store(true);
}

int fail(const Status& status) {
  std::fprintf(stderr, "transcode: %s\n", status.to_string().c_str());
  return exit_code_for(status.code());
}

int dry_run(const JobSpec& spec) {
  Status valid = validate(spec);
  if (!valid.is_ok()) return fail(valid);
  Result<io::Access> access = io::caller_access();
  if (!access.is_ok()) return fail(access.status());
  Result<MediaInfo> media = probe(spec.input, *access);
  if (!media.is_ok()) return fail(media.status());
  Result<Plan> plan = make_plan(spec, *media, discover_devices(discovery_for(spec)));
  if (!plan.is_ok()) return fail(plan.status());
  std::cout << describe(*plan) << "ffmpeg command:\n  " << ffmpeg_command(*plan, spec) << "\n";
  return kExitOk;
}

int run(const JobArgs& job) {
  if (job.dry_run) return dry_run(job.spec);

  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  ProgressBar bar(!job.quiet && !job.json);
  RunOptions options;
  Result<io::Access> access = io::caller_access();
  if (!access.is_ok()) return fail(access.status());
  options.access = std::move(*access);  // the caller's own permissions: "/" and the cwd
  options.cancel = &g_cancel;
  options.on_progress = [&bar](const Progress& progress) { bar.update(progress); };
  Result<JobReport> report = run_job(job.spec, options);
  bar.finish();
  if (!report.is_ok()) return fail(report.status());
  std::cout << (job.json ? report_to_json(*report) + "\n" : format_report(*report));
  return kExitOk;
}

}  // namespace

void add_run_command(CLI::App& root, CommandActions& actions) {
  CLI::App* command = root.add_subcommand("run", "transcode in this process");
  auto options = std::make_shared<JobOptions>(*command);
  actions[command] = [options] {
    Result<JobArgs> job = options->job_args();
    return job.is_ok() ? run(*job) : fail(job.status());
  };
}

}  // namespace tc::cli
