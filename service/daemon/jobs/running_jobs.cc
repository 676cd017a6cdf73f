#include "service/daemon/jobs/running_jobs.h"

#include <spdlog/spdlog.h>

namespace tc::daemon {

JobRecord Attempt::record() const {
  std::lock_guard lock(mutex_);
  return job_;
}

void Attempt::set_record(JobRecord job) {
  std::lock_guard lock(mutex_);
  job_ = std::move(job);
}

void Attempt::set_progress(const Progress& progress) {
  std::lock_guard lock(mutex_);
  job_.progress = progress;
}

void Attempt::set_engines(const metrics::EngineUsage& live) {
  std::lock_guard lock(mutex_);
  job_.engines = live;
}

void Attempt::set_usage_so_far(ResourceSeconds usage) {
  std::lock_guard lock(mutex_);
  for (AttemptRecord& attempt : job_.attempts)
    if (attempt.number == number && attempt.end_ms == 0) attempt.usage = std::move(usage);
}

Attempt& RunningJobs::add(std::unique_ptr<Attempt> attempt) {
  std::lock_guard lock(mutex_);
  Attempt& added = *attempt;
  attempts_[attempt->id] = std::move(attempt);
  return added;
}

void RunningJobs::overlay(JobRecord& job) const {
  if (job.state != JobState::kRunning) return;
  std::lock_guard lock(mutex_);
  auto it = attempts_.find(job.id);
  if (it == attempts_.end()) return;
  JobRecord live = it->second->record();
  job.progress = live.progress;
  job.engines = live.engines;
}

bool RunningJobs::runs(const std::string& id) const {
  std::lock_guard lock(mutex_);
  auto it = attempts_.find(id);
  return it != attempts_.end() && !it->second->done;
}

void RunningJobs::stop(const std::string& id, int reason, const char* why) {
  std::lock_guard lock(mutex_);
  auto it = attempts_.find(id);
  if (it == attempts_.end() || it->second->done) return;
  int none = kStopNone;
  if (it->second->stop.compare_exchange_strong(none, reason)) spdlog::info("job {}: {}", id, why);
}

void RunningJobs::stop_all(int reason) {
  std::lock_guard lock(mutex_);
  for (auto& [id, attempt] : attempts_)
    if (!attempt->done) attempt->stop = reason;
}

std::map<std::string, int> RunningJobs::attempts() const {
  std::lock_guard lock(mutex_);
  std::map<std::string, int> running;
  for (const auto& [id, attempt] : attempts_)
    if (!attempt->done) running[id] = attempt->number;
  return running;
}

std::vector<NodeSnapshot::RunningJob> RunningJobs::live() const {
  std::lock_guard lock(mutex_);
  std::vector<NodeSnapshot::RunningJob> live;
  for (const auto& [id, attempt] : attempts_)
    if (!attempt->done) live.push_back({id, attempt->device_name, attempt->record().engines});
  return live;
}

void RunningJobs::ended(Attempt& attempt) {
  std::lock_guard lock(mutex_);
  attempt.done = true;
  ended_.notify_all();
}

bool RunningJobs::all_ended() const {
  for (const auto& [id, attempt] : attempts_)
    if (!attempt->done) return false;
  return true;
}

bool RunningJobs::wait_all_ended(double timeout_s) {
  std::unique_lock lock(mutex_);
  if (timeout_s < 0) {
    ended_.wait(lock, [this] { return all_ended(); });
    return true;
  }
  return ended_.wait_for(lock, std::chrono::duration<double>(timeout_s),
                         [this] { return all_ended(); });
}

void RunningJobs::reap() {
  std::vector<std::unique_ptr<Attempt>> ended;
  {
    std::lock_guard lock(mutex_);
    for (auto it = attempts_.begin(); it != attempts_.end();) {
      if (!it->second->done) {
        ++it;
        continue;
      }
      ended.push_back(std::move(it->second));
      it = attempts_.erase(it);
    }
  }
  // Outside the lock: a thread that said it ended may still be returning.
  for (auto& attempt : ended)
    if (attempt->thread.joinable()) attempt->thread.join();
}

}  // namespace tc::daemon
