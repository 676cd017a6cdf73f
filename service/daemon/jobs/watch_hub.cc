#include "service/daemon/jobs/watch_hub.h"

namespace tc::daemon {
namespace {

// A change held back while the snapshot was read is news only when the snapshot does not
// already show it; nothing follows an ended job.
bool newer_than(const JobRecord& change, const JobRecord& snapshot) {
  if (is_terminal(snapshot.state)) return false;
  return change.state != snapshot.state || change.attempt != snapshot.attempt;
}

}  // namespace

JobRecord WatchHub::shown(const JobRecord& job) const {
  JobRecord copy = job;
  if (reason_ && job.state == JobState::kQueued) copy.waiting_reason = reason_(job);
  return copy;
}

void WatchHub::open(const std::string& id, std::shared_ptr<JobWatcher> watcher) {
  std::lock_guard lock(mutex_);
  watches_.emplace(id, Watch{std::move(watcher)});
}

void WatchHub::start(const JobWatcher* watcher, const JobRecord& job, bool remote) {
  std::lock_guard lock(mutex_);
  auto [first, last] = watches_.equal_range(job.id);
  for (auto it = first; it != last; ++it) {
    Watch& watch = it->second;
    if (watch.watcher.get() != watcher || watch.started) continue;
    watch.watcher->on_event(EventKind::kSnapshot, shown(job));
    for (const JobRecord& change : watch.held)
      if (newer_than(change, job)) watch.watcher->on_event(EventKind::kState, shown(change));
    watch.held.clear();
    watch.started = true;
    break;
  }
  if (remote && !is_terminal(job.state)) remote_.emplace(job.id, job.state);
}

void WatchHub::close(const std::string& id, const JobWatcher* watcher) {
  std::lock_guard lock(mutex_);
  auto [first, last] = watches_.equal_range(id);
  for (auto it = first; it != last; ++it)
    if (it->second.watcher.get() == watcher) {
      watches_.erase(it);
      break;
    }
  if (!watches_.count(id)) remote_.erase(id);
}

void WatchHub::send(Watch& watch, EventKind kind, const JobRecord& job) {
  if (watch.started)
    watch.watcher->on_event(kind, shown(job));
  else if (kind == EventKind::kState)
    watch.held.push_back(job);  // progress before the snapshot is stale once it is sent
}

void WatchHub::publish(EventKind kind, const JobRecord& job) {
  std::lock_guard lock(mutex_);
  auto [first, last] = watches_.equal_range(job.id);
  for (auto it = first; it != last; ++it) send(it->second, kind, job);
}

void WatchHub::runs_here(const std::string& id) {
  std::lock_guard lock(mutex_);
  remote_.erase(id);
}

std::vector<std::string> WatchHub::remote() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> ids;
  for (const auto& [id, state] : remote_) ids.push_back(id);
  return ids;
}

bool WatchHub::is_remote(const std::string& id) const {
  std::lock_guard lock(mutex_);
  return remote_.count(id) > 0;
}

void WatchHub::refresh(const JobRecord& job) {
  std::lock_guard lock(mutex_);
  auto it = remote_.find(job.id);
  if (it == remote_.end()) return;
  EventKind kind = job.state == it->second ? EventKind::kProgress : EventKind::kState;
  it->second = job.state;
  auto [first, last] = watches_.equal_range(job.id);
  for (auto w = first; w != last; ++w) send(w->second, kind, job);
  if (is_terminal(job.state)) remote_.erase(it);
}

}  // namespace tc::daemon
