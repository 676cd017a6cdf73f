// How much of each device its running jobs use, measured, and how much one more job would:
// what admission and the capacity figure follow (README, Capacity). A job's load is its
// worker's CPU cores (CPU seconds per wall second) and, on a GPU, the busy % of its busiest
// engine. Per device: the sum over its running jobs against the node's cores and, for a GPU,
// 100 %. One more job is expected to load a device as much as the jobs it has run did (an
// exponential mean, starting from a prior that gives today's fixed-slot admission).
// Plain data, no clock of its own: times are passed in (monotonic seconds), so tests drive it.
#pragma once

#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/metrics/engine_usage.h"

namespace tc::daemon {

// One job's load, or a device's (summed over its jobs).
struct Load {
  double cores = 0;           // CPU seconds per wall second
  double engine_percent = 0;  // GPU: its busiest engine's busy %; 0 for software
};

struct LoadSettings {
  double cores = 1;  // the node's CPU cores: a device's CPU capacity
  // A job younger than this counts at least as the estimate: its first samples still read
  // (near) zero, and a burst must not be admitted on them.
  double young_s = 1.5;
  double learn_after_s = 10;  // a job running this long teaches its average so far
  // Headroom beyond the capacity a job may still fit in: measurements jitter, and a job
  // estimated at exactly the free share must not be held for a rounding error.
  double tolerance = 0.05;
};

// What the model says of one device now: what caps and ListNodes show.
struct DeviceLoadView {
  int capacity = 0;         // more jobs like the running ones it takes now (with the slots cap)
  double load_percent = 0;  // measured: the fuller of CPU (of the cores) and engine (of 100 %)
  double job_cores = 0;     // one more job's expected CPU cores
  double job_engine_percent = 0;  // its expected busiest-engine %; 0 for software
};

class LoadModel {
 public:
  static constexpr int kUnbounded = std::numeric_limits<int>::max() / 2;

  LoadModel() = default;  // no devices: admission is left to the slots alone
  explicit LoadModel(LoadSettings settings) : settings_(settings) {}

  // Adds the next device (index = the number added before). `gpu`: its engine load counts.
  // `prior`: a job's load there before any job taught it.
  void add_device(bool gpu, Load prior);
  bool knows(int device) const { return device >= 0 && device < static_cast<int>(devices_.size()); }

  void start(int device, const std::string& job, double now_s);
  // The job's last sampling interval (JobSampler::live()).
  void sample(const std::string& job, const metrics::EngineUsage& live, double now_s);
  // The job ended: it teaches the device `average` (its whole run), unless it taught already,
  // then leaves. No average (it never ran, or was never sampled): it teaches nothing.
  void finish(const std::string& job, const std::optional<metrics::EngineUsage>& average);

  // How many more jobs like the estimate fit in the device's headroom now: at least one on a
  // device running nothing (one job always runs), kUnbounded when the estimate is zero.
  int more_jobs(int device, double now_s) const;
  Load load(int device, double now_s) const;  // its running jobs' load, as admission counts it
  Load estimate(int device) const;
  DeviceLoadView view(int device, double now_s) const;  // capacity: more_jobs, uncapped

 private:
  // An exponential mean whose first value is the prior, counted as one observation: the
  // first jobs' weights are 1/2, 1/3, ... until they reach kAlpha.
  struct Mean {
    double value = 0;
    int count = 1;
    void learn(double x);
  };
  struct Device {
    bool gpu = false;
    Mean cores;
    Mean engine;
  };
  struct Job {
    int device = 0;
    double start_s = 0;
    Load last;                  // the last interval's
    bool sampled = false;       // `last` holds a sample
    bool engine_known = false;  // the last sample had engine figures
    Load busy;                  // load x seconds over its samples: its average so far
    double engine_s = 0;        // seconds of samples with engine figures
    double sampled_s = 0;
    bool taught = false;
  };

  Load counted(const Job& job, double now_s) const;
  void teach(Job& job, Load average, bool engine_known);
  int jobs_on(int device) const;

  LoadSettings settings_;
  std::vector<Device> devices_;
  std::map<std::string, Job> jobs_;
};

// A job's load from the sampler's figures: its CPU cores and, when the GPU counters were
// available, its busiest engine's %.
Load load_of(const metrics::EngineUsage& usage);

}  // namespace tc::daemon
