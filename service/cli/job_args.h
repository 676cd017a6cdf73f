// Parses `transcode run` / `transcode submit` options into a JobSpec:
//   INPUT OUTPUT [options]
//   INPUT [options for all] -o OUT1 [options for OUT1] -o OUT2 [options for OUT2] ...
// Options before the first -o apply to every output; options after an -o to that one only.
#pragma once

#include <string>
#include <vector>

#include "pipeline/core/status.h"
#include "pipeline/spec/job_spec.h"

namespace tc::cli {

struct JobArgs {
  JobSpec spec;
  bool json = false;     // --json: print the final report as JSON
  bool dry_run = false;  // --dry-run: print the plan and the ffmpeg command, run nothing
  bool quiet = false;    // --quiet: no progress bar
  bool wait = false;     // --wait (submit): wait for the job to end
  std::string server;    // --server ADDR (submit)
  // Options the caller (a subcommand) takes beyond the job's: "--server", "--wait".
};

// `args` excludes the program and subcommand names. Errors are kInvalidArgument naming the option.
Result<JobArgs> parse_job_args(const std::vector<std::string>& args);

// The option list, for --help.
std::string job_args_help();

}  // namespace tc::cli
