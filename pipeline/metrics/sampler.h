// Samples one worker process: the engine counters of its DRM clients (/proc/PID/fdinfo/*), its
// CPU time (/proc/PID/stat) and, for cuda jobs, NVML's per-process decoder/encoder use. Turns
// counter deltas into busy % per engine class, for the last interval and averaged over the job.
//
// The model: each interval adds "busy engine-seconds" per class, i915 as delta ns / 1e9, xe as
// delta cycles / delta total-cycles x interval wall seconds, NVML as its % x interval. Busy % is
// busy engine-seconds / (wall seconds x capacity). Times are passed in (monotonic seconds), so
// tests drive the clock.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/metrics/engine_usage.h"
#include "pipeline/metrics/fdinfo.h"
#include "pipeline/metrics/nvml.h"

namespace tc::metrics {

// One read of /proc/PID.
struct ProcRead {
  std::vector<DrmClient> clients;  // one per drm-client-id (fds sharing a client count once)
  int drm_fds = 0;                 // fds on /dev/dri/*, with or without usage stats
  std::string error;               // why the fds could not be read; empty when they were
  std::optional<double> cpu_s;     // utime + stime
};

ProcRead read_proc(const std::string& proc_root, int pid);

// utime + stime in seconds from a /proc/PID/stat text; nullopt when it does not parse.
std::optional<double> parse_stat_cpu_seconds(const std::string& text);

struct SamplerOptions {
  std::string proc_root = "/proc";
  bool nvml = false;                   // a cuda job: NVML's per-process decoder/encoder use too
  unsigned nvml_device = 0;            // the CUDA device index
  std::shared_ptr<Nvml> nvml_library;  // null with nvml: nvml_reason says why
  std::string nvml_reason;
  std::string no_gpu_note;  // why a job may use no GPU: " (a software job)"
  // The worker was set up before this job (a warm one, or one that ran earlier jobs): the CPU
  // time and engine counters it holds when the sampler starts are not the job's.
  bool worker_predates_job = false;
};

class JobSampler {
 public:
  // `start_s`: when the worker was started; counters of a client first seen later are counted
  // from zero (i915) since they began with its fd.
  JobSampler(SamplerOptions options, int pid, double start_s);

  void sample(double now_s);
  // The job's end: one last reading, so that a job shorter than one interval is measured, and
  // no job loses the tail after its last tick. `cpu_at_exit_s`: the worker's CPU seconds as
  // wait4(2) gave them when it was reaped (its /proc entry is gone then: its engines add
  // nothing more); nullopt while it lives (a warm worker waiting for its next job), which is
  // read from /proc as any sample.
  void finish(double now_s, std::optional<double> cpu_at_exit_s);
  // The last interval: what live events show.
  const EngineUsage& live() const { return live_; }
  // From the start to the last sample: what the report keeps.
  EngineUsage average() const;
  int samples() const { return samples_; }

 private:
  struct ClassBusy {
    double busy_s = 0;  // busy engine-seconds
    unsigned capacity = 1;
  };
  using Classes = std::map<std::string, ClassBusy>;

  void add_drm(const ProcRead& read, double interval_s, Classes& interval, Classes& earlier);
  void add_nvml(double interval_s, Classes& interval);
  void count_from_now();
  std::string reason(bool live) const;
  EngineUsage usage_of(const Classes& classes, double interval_s) const;

  SamplerOptions options_;
  int pid_;
  double start_s_;
  double last_s_;
  int samples_ = 0;
  Classes total_;
  struct Seen {
    EngineCounter last;
    // xe: busy cycles a client had when first read; counted in the average once the GPU clock
    // rate (delta total-cycles per wall second) is known.
    uint64_t pending_cycles = 0;
  };
  std::map<std::string, std::map<std::string, Seen>> previous_;  // client key -> class
  std::string driver_;
  bool drm_seen_ = false;       // some sample had a DRM client with usage stats
  bool nvml_seen_ = false;      // some NVML sample of the process
  bool baseline_only_ = false;  // the last sample only took xe baselines
  int drm_fds_without_stats_ = 0;
  std::string last_error_;
  std::optional<double> last_cpu_s_;
  double cpu_at_start_ = 0;  // the worker's CPU seconds when this job began
  uint64_t nvml_since_us_ = 0;
  int64_t memory_total_peak_ = 0;
  int64_t memory_resident_peak_ = 0;
  EngineUsage live_;
};

}  // namespace tc::metrics
