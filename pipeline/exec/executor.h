// Runs a Plan: demux -> decode -> one filter graph (split to N branches) -> N encoders -> N
// muxers. Builds only what the Plan says. Outputs are written under temporary names and renamed
// when every output is complete; on failure or cancel nothing that looks finished is left.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "pipeline/core/status.h"
#include "pipeline/io/access.h"
#include "pipeline/plan/plan.h"
#include "pipeline/probe/media_info.h"
#include "pipeline/spec/job_spec.h"

namespace tc {

struct Progress {
  int64_t frames_decoded = 0;
  int64_t frames_encoded = 0;   // video frames, summed over outputs
  double media_time_s = 0;      // how far into the (trimmed) input the job is
  double media_duration_s = 0;  // the (trimmed) input's length; 0 when unknown
  double elapsed_s = 0;
  double fps = 0;    // decoded frames per wall second
  double speed = 0;  // media time per wall time
};

struct OutputReport {
  std::string path;
  std::string encoder;  // "libx264", "h264_vaapi", "copy"
  std::string device;   // where its encoder ran
  int width = 0;
  int height = 0;
  int64_t frames = 0;
  int64_t bytes = 0;
  double duration_s = 0;
  int64_t bitrate = 0;  // bits per second, bytes * 8 / duration
};

struct JobReport {
  std::string input;
  std::string backend;
  std::string backend_reason;
  std::vector<Stage> stages;
  std::vector<OutputReport> outputs;
  int64_t frames_decoded = 0;
  double media_duration_s = 0;
  double setup_s = 0;        // probe + device discovery + plan, before wall_s starts
  double wall_s = 0;         // the pipeline itself: open to last output renamed
  double cpu_s = 0;          // user + system CPU time of this process
  double fps = 0;            // frames decoded per wall second
  double speed = 0;          // media seconds per wall second
  double first_frame_s = 0;  // wall time to the first encoded video packet
};

using ProgressFn = std::function<void(const Progress&)>;

struct RunOptions {
  ProgressFn on_progress;  // called about every progress_interval_s
  double progress_interval_s = 0.5;
  const std::atomic<bool>* cancel = nullptr;  // set to stop; the job ends kCancelled
  DiscoveryOptions discovery;
  io::Access access;  // where the job may read and write (required: io/access.h)
};

Result<JobReport> execute(const Plan& plan, const JobSpec& spec, const MediaInfo& media,
                          const RunOptions& options);

// probe -> discover -> plan -> execute: what `transcode run` and a daemon worker do.
Result<JobReport> run_job(const JobSpec& spec, const RunOptions& options);

// The temporary name an output is written to before it is complete: a hidden file beside it,
// so that the rename is atomic and a crash leaves only names that say "partial".
std::string partial_path(const std::string& path);

std::string report_to_json(const JobReport& report, int indent = 2);
std::string progress_to_json(const Progress& progress);

}  // namespace tc
