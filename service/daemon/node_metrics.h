// What the node has done and is doing, for the Prometheus endpoint (metrics_endpoint.h): plain
// data the JobManager keeps and snapshots under its lock. No Prometheus types here.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "pipeline/metrics/engine_usage.h"

namespace tc::daemon {

// A Prometheus-style histogram: counts per upper bound (not cumulative) plus +Inf.
struct DurationHistogram {
  static const std::vector<double>&
  bounds();  // seconds: 1, 5, 10, 30, 60, 120, 300, 600, 1800, 3600
  std::vector<uint64_t> counts = std::vector<uint64_t>(bounds().size() + 1, 0);
  uint64_t count = 0;
  double sum = 0;
  void observe(double seconds);
};

// Totals of one device since the daemon started.
struct DeviceTotals {
  int64_t frames_encoded = 0;  // video frames of encoded (not copied) outputs of succeeded jobs
  int64_t frames_decoded = 0;
  std::map<std::string, double> engine_busy_s;  // busy engine-seconds per engine class
};

struct NodeSnapshot {
  std::map<std::string, int64_t> jobs_by_state;  // "queued" -> n, every state present
  int64_t queue_depth = 0;
  struct Device {
    std::string name;  // "software", "vaapi /dev/dri/renderD128"
    std::string backend;
    int slots = 0;
    int running = 0;
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
  std::map<std::string, DurationHistogram> job_duration;  // by final state
};

}  // namespace tc::daemon
