#include "service/transcode/run_command.h"

#include <CLI/CLI.hpp>

#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>

extern "C" {
#include <libavutil/log.h>
}

#include "pipeline/exec/executor.h"
#include "pipeline/exec/progress_estimate.h"
#include "pipeline/hw/discovery_cache.h"
#include "pipeline/hw/intel_profiles.h"
#include "pipeline/hw/intel_stack.h"
#include "pipeline/plan/cores.h"
#include "service/cli/job_args.h"
#include "service/cli/progress_bar.h"
#include "service/cli/progress_json.h"
#include "service/common/exit_codes.h"
#include "service/common/process_exit.h"

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

// Flags of `transcode run` alone (not of a job).
struct RunFlags {
  std::string assumed_device;
  bool serial = false;
  bool no_cache = false;
  std::string progress = "bar";  // --progress: bar or json
  // Where discovery keeps what it found ("" with --no-cache).
  std::string cache_dir() const { return no_cache ? "" : default_cache_dir(); }
};

// The devices to plan with: this host's, or the one Intel GPU --assume-device names.
Result<HwInventory> planning_devices(const JobSpec& spec, const RunFlags& flags) {
  const std::string& assumed_device = flags.assumed_device;
  if (assumed_device.empty()) return discover_cached(discovery_for(spec), flags.cache_dir());
  TC_ASSIGN_OR_RETURN(HwDevice device, assume_intel_device(assumed_device));
  HwInventory inventory;
  if (spec.backend == BackendKind::kQsv) {
    // A generation without a QSV runtime for this build's FFmpeg would fail at the first frame.
    TC_RETURN_IF_ERROR(
        intel_qsv_runtime(intel_profile_key(assumed_device), this_build_qsv_runtime()));
    inventory.devices.push_back(qsv_device_on(device));
  }
  inventory.devices.push_back(std::move(device));
  return inventory;
}

// The options a job is composed and run with (prepare_job), a dry run's included: the
// caller's own permissions ("/" and the cwd), this host's devices or the one --assume-device
// names.
Result<RunOptions> run_options(const JobSpec& spec, const RunFlags& flags) {
  RunOptions options;
  TC_ASSIGN_OR_RETURN(options.access, io::caller_access());
  options.cancel = &g_cancel;
  options.branch_threads = !flags.serial;
  options.discovery_cache_dir = flags.cache_dir();
  if (!flags.assumed_device.empty()) {
    TC_ASSIGN_OR_RETURN(options.devices, planning_devices(spec, flags));
    options.devices_only = true;
  }
  return options;
}

// The job composed as a run composes it (prepare_job), its plan printed; nothing runs.
int dry_run(const JobSpec& spec, const RunFlags& flags) {
  const std::string& assumed_device = flags.assumed_device;
  Status valid = validate(spec);
  if (!valid.is_ok()) return fail(valid);
  Result<RunOptions> options = run_options(spec, flags);
  if (!options.is_ok()) return fail(options.status());
  Result<PreparedJob> prepared = prepare_job(spec, *options);
  if (!prepared.is_ok()) return fail(prepared.status());
  if (!assumed_device.empty())
    std::cout << "assumed device: " << options->devices->devices[0].model << " (--assume-device "
              << assumed_device << ")\nHuC: " << options->devices->devices.back().huc_seen << "\n";
  // Planning for it works anywhere; running it needs user space this build may not have.
  if (!assumed_device.empty())
    if (std::string gap = intel_stack_gap(options->devices->devices.back().driver); !gap.empty())
      std::cout << "note: " << gap << "\n";
  std::cout << describe(prepared->plan) << "ffmpeg command:\n  "
            << ffmpeg_command(prepared->plan, spec) << "\n";
  return kExitOk;
}

int run(const JobArgs& job, const RunFlags& flags) {
  if (job.dry_run) return dry_run(job.spec, flags);
  if (!flags.assumed_device.empty())
    return fail(Status(Code::kInvalidArgument,
                       "--assume-device plans for a GPU that is not here: use it with --dry-run"));

  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  Result<ProgressMode> mode = parse_progress_mode(flags.progress);
  if (!mode.is_ok()) return fail(mode.status());
  bool lines = *mode == ProgressMode::kJson;
  ProgressBar bar(!job.quiet && !job.json && !lines);
  Result<RunOptions> made = run_options(job.spec, flags);
  if (!made.is_ok()) return fail(made.status());
  RunOptions& options = *made;
  Progress last;
  options.on_progress = [&bar, &last, lines](const Progress& progress) {
    last = progress;
    if (lines)
      std::cout << progress_json_line("running", progress, progress_percent(progress),
                                      progress_eta_s(progress))
                << std::flush;
    bar.update(progress);
  };
  Result<PreparedJob> prepared = prepare_job(job.spec, options);
  Result<FinishedJob> finished = prepared.is_ok() ? run_prepared(*prepared, job.spec, options)
                                                  : Result<FinishedJob>(prepared.status());
  bar.finish();
  if (!finished.is_ok()) return fail(finished.status());
  const JobReport& report = finished->report;
  if (lines)  // the last line: the report, on one line
    std::cout << progress_json_line("succeeded", last, progress_percent(last), {})
              << report_to_json(report, -1) << "\n";
  else
    std::cout << (job.json ? report_to_json(report) + "\n" : format_report(report));
  // The outputs are published and the report is out: end with the pipeline still open.
  return end_process(kExitOk);
}

}  // namespace

void add_run_command(CLI::App& root, CommandActions& actions) {
  CLI::App* command = root.add_subcommand("run", "transcode in this process");
  auto options = std::make_shared<JobOptions>(*command);
  auto flags = std::make_shared<RunFlags>();
  command
      ->add_option("--assume-device", flags->assumed_device,
                   "with --dry-run: plan as if this Intel GPU were the only device (dg2, tgl, "
                   "icl:no-huc, ...; `transcode caps --profiles` lists them)")
      ->type_name("PROFILE");
  command->add_flag(
      "--no-cache", flags->no_cache,
      "discover the devices again instead of reading what an earlier run found "
      "(kept under ~/.cache/transcoded, keyed by the devices, drivers and libraries)");
  command
      ->add_option("--progress", flags->progress,
                   "bar (default: a progress bar on a terminal) or json (a JSON object a line on "
                   "stdout: state, frames, fps, media_time_s, percent, eta_s; then the report)")
      ->type_name(progress_mode_label());
  command->add_flag("--serial", flags->serial,
                    "encode and mux every output on the demux thread, one after another, instead "
                    "of each on its own thread (the same bitstreams; for comparison)");
  actions[command] = [options, flags] {
    Result<JobArgs> job = options->job_args();
    return job.is_ok() ? run(*job, *flags) : fail(job.status());
  };
}

}  // namespace tc::cli
