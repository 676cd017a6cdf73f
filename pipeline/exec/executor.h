// Runs a Plan: demux -> decode -> one filter graph (split to N branches) -> N encoders -> N
// muxers. Builds only what the Plan says. Outputs are written under temporary names and renamed
// when every output is complete; on failure or cancel nothing that looks finished is left.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/core/status.h"
#include "pipeline/exec/report.h"
#include "pipeline/io/access.h"
#include "pipeline/plan/plan.h"
#include "pipeline/probe/media_info.h"
#include "pipeline/spec/job_spec.h"

namespace tc {

using ProgressFn = std::function<void(const Progress&)>;
// Asked once, when every output is complete and none is renamed yet: ok publishes; any other
// status fails the job with it and every partial output is removed (nothing is published).
using PublishGate = std::function<Status()>;

struct RunOptions {
  ProgressFn on_progress;  // called about every progress_interval_s
  double progress_interval_s = 0.5;
  const std::atomic<bool>* cancel = nullptr;  // set to stop; the job ends kCancelled
  DiscoveryOptions discovery;
  io::Access access;  // where the job may read and write (required: io/access.h)
  // The daemon's attempt at the job (1, 2, ...; 0: `transcode run`): the partial outputs carry
  // it in their names (io::partial_name), so two attempts never share a temp file.
  int attempt = 0;
  PublishGate publish_gate;  // empty: always publish
  // Each output encodes and muxes on its own thread (exec/branch_lane.h); false runs them all
  // on the demux thread, one after another (`transcode run --serial`). The
  // bitstreams are the same either way.
  bool branch_threads = true;
  // GOP-parallel encoding (plan/gop_parallel.h) for a job that leaves it to its runner
  // (JobSpec::gop_parallel 0): at most this many encoders per output, each a chunk of whole
  // GOPs; 0 = auto (from this machine's cores), 1 = one encoder per output. A daemon node's
  // `gop_parallel` setting.
  int gop_parallel = 0;
  // Devices discovered already (a daemon's, handed to its worker): used instead of discovering
  // when they cover the job's backend. Else discovery runs, through the cache in
  // `discovery_cache_dir` when one is named (hw/discovery_cache.h; `transcode run`).
  std::optional<HwInventory> devices;
  // `devices` are all the job may use, whatever its backend: nothing is discovered (`transcode
  // run --dry-run --assume-device`, planning for a GPU that is not here).
  bool devices_only = false;
  std::string discovery_cache_dir;
};

// A job that ran: its report, and the pipeline it ran on, still open. Letting `pipeline` go
// tears it down (a CUDA decoder's and its frame pools' teardown took 0.2-0.3 s on the H200),
// so a caller can report the job first, and a process that ends then (end_process) need not
// tear it down at all. The pipeline refers to the job's plan, spec and options: it must go
// before they do.
struct FinishedJob {
  JobReport report;
  std::shared_ptr<void> pipeline;
};

Result<FinishedJob> execute(const Plan& plan, const JobSpec& spec, const MediaInfo& media,
                            const RunOptions& options);

// A job probed, its devices discovered and planned: everything execute() needs.
struct PreparedJob {
  MediaInfo media;
  Plan plan;
  double setup_s = 0;  // what preparing took
};

// validate -> probe -> `check_source` (when set; a caller's limits on what the probe found,
// before any device is opened) -> discover -> plan. The input is probed here, once per job.
// The one composition of a job: a run, a worker's job and `--dry-run` (which prints the plan
// it prepared and runs nothing) all go through it.
using SourceCheck = std::function<Status(const MediaInfo&)>;
Result<PreparedJob> prepare_job(const JobSpec& spec, const RunOptions& options,
                                const SourceCheck& check_source = {});
// execute() of a prepared job, its report carrying setup_s.
Result<FinishedJob> run_prepared(const PreparedJob& job, const JobSpec& spec,
                                 const RunOptions& options);
// prepare -> execute -> tear down: the report of a whole job.
Result<JobReport> run_job(const JobSpec& spec, const RunOptions& options);

// The temporary name an output is written to before it is complete, in attempt `attempt`: a
// hidden file beside it, so that the rename is atomic and a crash leaves only names that say
// "partial" (io::partial_name).
std::string partial_path(const std::string& path, int attempt);

}  // namespace tc
