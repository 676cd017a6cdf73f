// The node's running totals for /metrics (node_metrics.h): per device the frames, engine time
// and worker starts, and the histograms of finished jobs' durations and outputs' quality. Its own
// lock, held for a counter's update or a copy, never over the store.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "pipeline/metrics/engine_usage.h"
#include "service/daemon/model/job_record.h"
#include "service/daemon/model/node_metrics.h"

namespace tc::daemon {

class NodeCounters {
 public:
  // A job's worker started on `device`: one set up ahead of the job (warm), or for it.
  void count_start(const std::string& device, bool warm);
  // One sampling interval of a job running on `device`.
  void count_busy(const std::string& device, const metrics::EngineUsage& live);
  // A job that ended: its duration and queue wait, and a succeeded one's frames and quality.
  void count_finished(const JobRecord& job);
  // What an ended attempt of `tenant`'s job measurably used, once its end is stored.
  void count_usage(const std::string& tenant, const ResourceSeconds& usage);

  // Copies the totals into `snapshot`: each of its devices' totals, the histograms.
  void fill(NodeSnapshot& snapshot) const;

 private:
  void count_quality(const JobReport& report);

  mutable std::mutex mutex_;
  std::map<std::string, DeviceTotals> device_totals_;       // by device name
  std::map<std::string, DurationHistogram> job_durations_;  // by final state
  DurationHistogram queue_wait_;                            // create to start, of jobs that ran
  std::map<std::string, PsnrHistogram> output_psnr_;        // --quality outputs, by backend
  std::map<std::string, SsimHistogram> output_ssim_;
  std::map<std::string, ResourceSeconds> tenant_usage_;  // by tenant
};

}  // namespace tc::daemon
