// What the node has done and is doing, for the Prometheus endpoint (metrics_endpoint.h): plain
// data the JobManager keeps and snapshots under its lock. No Prometheus types here.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/metrics/engine_usage.h"
#include "service/daemon/model/attempt_usage.h"
#include "service/daemon/model/load_model.h"

namespace tc::daemon {

// Upper bounds of the histograms' buckets.
const std::vector<double>& duration_bounds();  // seconds: 1, 5, 10, 30, ... 3600
const std::vector<double>& psnr_bounds();      // dB: 20, 25, 30, 32, ... 50
const std::vector<double>& ssim_bounds();      // 0.5, 0.8, 0.9, ... 0.999

// A Prometheus-style histogram: counts per upper bound (not cumulative) plus +Inf.
template <const std::vector<double>& (*Bounds)()>
struct BucketHistogram {
  static const std::vector<double>& bounds() { return Bounds(); }
  std::vector<uint64_t> counts = std::vector<uint64_t>(bounds().size() + 1, 0);
  uint64_t count = 0;
  double sum = 0;
  void observe(double value) {
    size_t i = 0;
    while (i < bounds().size() && value > bounds()[i]) ++i;
    counts[i] += 1;
    count += 1;
    sum += value;
  }
};
using DurationHistogram = BucketHistogram<duration_bounds>;
using PsnrHistogram = BucketHistogram<psnr_bounds>;
using SsimHistogram = BucketHistogram<ssim_bounds>;

// Totals of one device since the daemon started.
struct DeviceTotals {
  int64_t frames_encoded = 0;  // video frames of encoded (not copied) outputs of succeeded jobs
  int64_t frames_decoded = 0;
  std::map<std::string, double> engine_busy_s;  // busy engine-seconds per engine class
  int64_t warm_starts = 0;  // jobs that ran on a worker started ahead (worker_pool.h)
  int64_t cold_starts = 0;  // jobs whose worker was started for them
};

struct NodeSnapshot {
  std::map<std::string, int64_t> jobs_by_state;  // "queued" -> n, every state present
  bool store_up = true;  // the job store answered the node's last beat (health says the same)
  int64_t queue_depth = 0;
  struct Device {
    std::string name;  // "software", "vaapi /dev/dri/renderD128"
    std::string backend;
    int slots = 0;
    int running = 0;
    int warm_ready = 0;             // warm workers waiting for a job
    int64_t warm_lost = 0;          // warm workers that ended while they waited
    int64_t warm_failed_setup = 0;  // warm workers that never got ready
    DeviceLoadView load;  // capacity, load and one job's estimate (Scheduler::devices_now)
    std::map<std::string, double> engine_busy_percent;  // summed over its running jobs, live
    DeviceTotals totals;
  };
  std::vector<Device> devices;
  struct RunningJob {
    std::string id;
    std::string device;
    metrics::EngineUsage live;
  };
  std::vector<RunningJob> running;
  // What the attempts this node ran measurably used (attempt_usage.h), per tenant, counted when
  // each one's end was stored: tenants are configured, so the label's values are bounded.
  std::map<std::string, ResourceSeconds> tenant_usage;
  std::map<std::string, DurationHistogram> job_duration;  // by final state
  // Create to start of jobs that ran (their last attempt's start), observed when they end.
  DurationHistogram queue_wait;
  // --quality outputs of succeeded jobs, by backend: PSNR (all planes) and SSIM.
  std::map<std::string, PsnrHistogram> output_psnr;
  std::map<std::string, SsimHistogram> output_ssim;
  // Webhooks (README, Webhooks), when this daemon sends them: undelivered notices in the
  // outbox, and the age of the oldest.
  struct Webhooks {
    int64_t backlog = 0;
    double oldest_age_s = 0;
  };
  std::optional<Webhooks> webhooks;
};

}  // namespace tc::daemon
