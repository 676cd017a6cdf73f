#include "service/daemon/jobs/node_counters.h"

#include "service/daemon/model/attempt_usage.h"

namespace tc::daemon {

void NodeCounters::count_start(const std::string& device, bool warm) {
  std::lock_guard lock(mutex_);
  DeviceTotals& totals = device_totals_[device];
  (warm ? totals.warm_starts : totals.cold_starts) += 1;
}

void NodeCounters::count_busy(const std::string& device, const metrics::EngineUsage& live) {
  if (!live.available) return;
  std::lock_guard lock(mutex_);
  DeviceTotals& totals = device_totals_[device];
  for (const metrics::EngineBusy& e : live.engines)
    totals.engine_busy_s[e.engine] += busy_engine_seconds(e, live.interval_s);
}

void NodeCounters::count_finished(const JobRecord& job) {
  std::lock_guard lock(mutex_);
  if (job.start_ms > 0 && job.end_ms >= job.start_ms)
    job_durations_[std::string(state_name(job.state))].observe((job.end_ms - job.start_ms) / 1e3);
  if (job.start_ms > 0 && job.create_ms > 0 && job.start_ms >= job.create_ms)
    queue_wait_.observe((job.start_ms - job.create_ms) / 1e3);
  if (job.state != JobState::kSucceeded || !job.report) return;
  DeviceTotals& totals = device_totals_[job.device];
  totals.frames_decoded += job.report->frames_decoded;
  for (const OutputReport& output : job.report->outputs)
    if (output.encoder != "copy") totals.frames_encoded += output.frames;
  count_quality(*job.report);
}

void NodeCounters::count_usage(const std::string& tenant, const ResourceSeconds& usage) {
  std::lock_guard lock(mutex_);
  add_usage(tenant_usage_[tenant], usage);
}

void NodeCounters::count_quality(const JobReport& report) {
  for (const OutputReport& output : report.outputs) {
    if (!output.quality) continue;
    if (output.quality->psnr_avg_db)
      output_psnr_[report.backend].observe(*output.quality->psnr_avg_db);
    if (output.quality->ssim) output_ssim_[report.backend].observe(*output.quality->ssim);
  }
}

void NodeCounters::fill(NodeSnapshot& snapshot) const {
  std::lock_guard lock(mutex_);
  for (NodeSnapshot::Device& device : snapshot.devices)
    if (auto it = device_totals_.find(device.name); it != device_totals_.end())
      device.totals = it->second;
  snapshot.job_duration = job_durations_;
  snapshot.queue_wait = queue_wait_;
  snapshot.output_psnr = output_psnr_;
  snapshot.output_ssim = output_ssim_;
  snapshot.tenant_usage = tenant_usage_;
}

}  // namespace tc::daemon
