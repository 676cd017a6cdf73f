#include "service/daemon/model/load_model.h"

#include <algorithm>
#include <cmath>

namespace tc::daemon {
namespace {

// The weight of the newest job in a device's estimate once its first few jobs are in: about
// the last four jobs decide, so a change of workload shows within a handful of jobs.
constexpr double kAlpha = 0.25;

}  // namespace

Load load_of(const metrics::EngineUsage& usage) {
  Load load;
  load.cores = usage.cpu_cores;
  if (usage.available)
    for (const metrics::EngineBusy& e : usage.engines)
      load.engine_percent = std::max(load.engine_percent, e.busy_percent);
  return load;
}

void LoadModel::Mean::learn(double x) {
  count += 1;
  value += std::max(kAlpha, 1.0 / count) * (x - value);
}

void LoadModel::add_device(bool gpu, Load prior) {
  Device device;
  device.gpu = gpu;
  device.cores.value = prior.cores;
  device.engine.value = gpu ? prior.engine_percent : 0;
  devices_.push_back(device);
}

void LoadModel::start(int device, const std::string& job, double now_s) {
  if (!knows(device)) return;
  Job started;
  started.device = device;
  started.start_s = now_s;
  jobs_[job] = started;
}

void LoadModel::sample(const std::string& job, const metrics::EngineUsage& live, double now_s) {
  auto it = jobs_.find(job);
  if (it == jobs_.end() || live.interval_s <= 0) return;
  Job& j = it->second;
  j.last = load_of(live);
  j.sampled = true;
  j.engine_known = live.available;
  j.busy.cores += j.last.cores * live.interval_s;
  j.sampled_s += live.interval_s;
  if (live.available) {
    j.busy.engine_percent += j.last.engine_percent * live.interval_s;
    j.engine_s += live.interval_s;
  }
  // A long job teaches its average so far: its device's next jobs need not wait for its end.
  if (!j.taught && now_s - j.start_s >= settings_.learn_after_s) {
    Load average{j.busy.cores / j.sampled_s,
                 j.engine_s > 0 ? j.busy.engine_percent / j.engine_s : 0};
    teach(j, average, j.engine_s > 0);
  }
}

void LoadModel::finish(const std::string& job, const std::optional<metrics::EngineUsage>& average) {
  auto it = jobs_.find(job);
  if (it == jobs_.end()) return;
  if (!it->second.taught && average) teach(it->second, load_of(*average), average->available);
  jobs_.erase(it);
}

void LoadModel::teach(Job& job, Load average, bool engine_known) {
  Device& device = devices_[job.device];
  device.cores.learn(average.cores);
  if (device.gpu && engine_known) device.engine.learn(average.engine_percent);
  job.taught = true;
}

Load LoadModel::estimate(int device) const {
  if (!knows(device)) return {};
  const Device& d = devices_[device];
  return {d.cores.value, d.gpu ? d.engine.value : 0};
}

// A young or unsampled job counts as at least the estimate; a figure not measured (no engine
// counters) counts as the estimate for as long as it is not.
Load LoadModel::counted(const Job& job, double now_s) const {
  Load estimate = this->estimate(job.device);
  bool young = now_s - job.start_s < settings_.young_s;
  Load load;
  load.cores = young || !job.sampled ? std::max(job.sampled ? job.last.cores : 0, estimate.cores)
                                     : job.last.cores;
  load.engine_percent =
      young || !job.engine_known
          ? std::max(job.engine_known ? job.last.engine_percent : 0, estimate.engine_percent)
          : job.last.engine_percent;
  return load;
}

Load LoadModel::load(int device, double now_s) const {
  Load sum;
  for (const auto& [id, job] : jobs_) {
    if (job.device != device) continue;
    Load one = counted(job, now_s);
    sum.cores += one.cores;
    sum.engine_percent += one.engine_percent;
  }
  if (knows(device) && !devices_[device].gpu) sum.engine_percent = 0;
  return sum;
}

int LoadModel::jobs_on(int device) const {
  return static_cast<int>(std::count_if(jobs_.begin(), jobs_.end(), [&](const auto& entry) {
    return entry.second.device == device;
  }));
}

int LoadModel::more_jobs(int device, double now_s) const {
  if (!knows(device)) return kUnbounded;
  Load one = estimate(device);
  Load used = load(device, now_s);
  double more = kUnbounded;
  auto fit = [&](double capacity, double in_use, double per_job) {
    // The epsilon keeps 2.1 / 0.7 from flooring to 2 on a rounding error.
    if (per_job > 0)
      more = std::min(more,
                      std::floor((capacity * (1 + settings_.tolerance) - in_use) / per_job + 1e-9));
  };
  fit(settings_.cores, used.cores, one.cores);
  if (devices_[device].gpu) fit(100, used.engine_percent, one.engine_percent);
  int jobs = static_cast<int>(std::max(0.0, more));
  // An idle device always takes a job: nothing of its own runs there to make room.
  return jobs_on(device) == 0 ? std::max(jobs, 1) : jobs;
}

DeviceLoadView LoadModel::view(int device, double now_s) const {
  DeviceLoadView view;
  if (!knows(device)) return view;
  Load used = load(device, now_s);
  Load one = estimate(device);
  view.capacity = more_jobs(device, now_s);
  double cpu_share = settings_.cores > 0 ? used.cores / settings_.cores : 0;
  view.load_percent = 100 * std::max(cpu_share, used.engine_percent / 100);
  view.job_cores = one.cores;
  view.job_engine_percent = one.engine_percent;
  return view;
}

}  // namespace tc::daemon
