// The job manager's side of cluster mode (README, Cluster): taking over the jobs of nodes whose
// lease ran out, the node's beat (its row, its leases, what other nodes offer), the publish
// fence, and what other nodes do to jobs, as the store's events tell.
#include <spdlog/spdlog.h>

#include <thread>

#include "service/daemon/jobs/job_manager.h"

namespace tc::daemon {
namespace {

using Clock = std::chrono::steady_clock;

void log_store_error(const Status& status) {
  if (!status.is_ok()) spdlog::error("{}", status.message());
}

}  // namespace

// Jobs left RUNNING by a node that died (its worker died with it: the parent-death signal), so
// their partial outputs are garbage: run them again, unless they have had their attempts. At
// start-up `own_node` is this node, whose previous process is gone whatever its leases say.
Status JobManager::take_orphans(const std::string& own_node) {
  TC_ASSIGN_OR_RETURN(std::vector<JobRecord> orphans, store_.leases().orphans(own_node));
  for (JobRecord& job : orphans) {
    bool expired = own_node.empty() || job.node != own_node;
    TC_RETURN_IF_ERROR(requeue_orphan(std::move(job), expired));
  }
  return {};
}

Status JobManager::requeue_orphan(JobRecord job, bool lease_expired) {
  RowState expected{JobState::kRunning, job.attempt, lease_expired};
  std::string from = job.node;
  job.progress = {};
  job.node.clear();
  if (job.attempt >= options_.max_attempts) {
    job.state = JobState::kFailed;
    job.end_ms = now_ms();
    job.error =
        Status(Code::kInternal, "the node running it stopped during each of " +
                                    std::to_string(job.attempt) + " attempts (max_attempts)");
  } else {
    job.state = JobState::kQueued;
  }
  TC_ASSIGN_OR_RETURN(bool written, save(job, expected));
  if (!written) return {};  // another node took it over first, or its owner renewed
  remove_partial_outputs(job.spec, job.attempt, options_.policy.roots);
  if (job.state == JobState::kFailed)
    spdlog::warn("job {}: failed after {} interrupted attempts", job.id, job.attempt);
  else
    spdlog::info("job {}: attempt {} on node {} was cut off: queued again", job.id, job.attempt,
                 from.empty() ? "?" : from);
  std::lock_guard lock(mutex_);
  if (job.state == JobState::kFailed) count_finished(job);
  publish(EventKind::kState, job);
  wake_dispatcher();
  return {};
}

// Retried while the store is unreachable, for as long as the lease could still be ours. A
// cancel accepted before the gate wins: the job is stopped as cancelled, nothing is published.
Status JobManager::may_publish(Running& running) {
  auto give_up = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(options_.lease_s));
  const JobRecord& job = running.job;
  while (true) {
    Result<Fence> fence = store_.leases().hold_lease(
        job.id, job.attempt, options_.node_id, lease_ms(options_.lease_s));
    if (fence.is_ok() && *fence == Fence::kPublish) return {};
    if (fence.is_ok() && *fence == Fence::kCancelled) {
      running.stop.store(kStopCancel);  // however the worker ends now, the job is CANCELLED
      return {Code::kCancelled, "cancelled by request: its outputs are not published"};
    }
    if (fence.is_ok() || Clock::now() >= give_up)
      return {Code::kInternal, "attempt " + std::to_string(job.attempt) +
                                   " no longer holds the job (another node took it over): its "
                                   "outputs are not published"};
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

Status JobManager::beat(const NodeRecord& node) {
  TC_RETURN_IF_ERROR(store_.nodes().heartbeat(node));
  renew_leases();
  TC_RETURN_IF_ERROR(take_orphans(""));
  std::lock_guard lock(mutex_);
  TC_RETURN_IF_ERROR(learn_offers());
  wake_dispatcher();
  return {};
}

// Which backends the live nodes offer. A node silent for a few leases (a minute at least) is
// gone: its backends are no longer waited for.
Status JobManager::learn_offers() {
  TC_ASSIGN_OR_RETURN(std::vector<NodeRecord> nodes, store_.nodes().list());
  int64_t live_since = now_ms() - 3 * lease_ms(std::max(options_.lease_s, 20.0));
  offered_anywhere_ = scheduler_.offered();
  for (const NodeRecord& other : nodes)
    if (other.heartbeat_ms >= live_since && other.id != options_.node_id)
      offered_anywhere_.insert(other.backends.begin(), other.backends.end());
  offers_learned_ = Clock::now();
  return {};
}

// A job whose lease did not renew was taken over (this node was away too long): its worker
// stops and writes nothing. A cancel asked through another node is heard here too, should its
// notification have been missed.
void JobManager::renew_leases() {
  // Only the jobs running now are judged: one claimed while the store answers is not in `held`
  // yet, and must not be taken for lost.
  std::map<std::string, int> running;  // id -> attempt
  {
    std::lock_guard lock(mutex_);
    for (const auto& [id, job] : running_)
      if (!job->done) running[id] = job->job.attempt;
  }
  std::vector<std::string> ids;
  for (const auto& [id, attempt] : running) ids.push_back(id);
  Result<std::vector<HeldJob>> held =
      store_.leases().renew_leases(options_.node_id, ids, lease_ms(options_.lease_s));
  if (!held.is_ok()) return log_store_error(held.status());
  std::map<std::string, HeldJob> by_id;
  for (HeldJob& job : *held) by_id[job.id] = job;
  std::lock_guard lock(mutex_);
  for (const auto& [id, attempt] : running) {
    auto it = by_id.find(id);
    if (it == by_id.end() || it->second.attempt != attempt)
      stop_running(id, kStopLost, "its lease was taken over by another node: stopping");
    else if (it->second.cancel_requested)
      stop_running(id, kStopCancel, "cancel requested through another node");
  }
}

void JobManager::listen_loop() {
  while (true) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
    }
    std::vector<StoreEvent> events = events_->wait(options_.claim_poll_s);
    std::lock_guard lock(mutex_);
    if (events.empty()) events.push_back({StoreEvent::Kind::kMissed, ""});  // the poll
    for (const StoreEvent& event : events) on_store_event(event);
  }
}

void JobManager::on_store_event(const StoreEvent& event) {
  switch (event.kind) {
    case StoreEvent::Kind::kQueued:
      return wake_dispatcher();
    case StoreEvent::Kind::kCancel:
      return stop_running(event.job_id, kStopCancel, "cancel requested through another node");
    case StoreEvent::Kind::kChanged:
      if (remote_watched_.count(event.job_id)) refresh_remote_watch(event.job_id);
      return;
    case StoreEvent::Kind::kMissed: {
      wake_dispatcher();
      std::vector<std::string> ids;
      for (const auto& [id, state] : remote_watched_) ids.push_back(id);
      for (const std::string& id : ids) refresh_remote_watch(id);
      return;
    }
  }
}

// A job watched here and run elsewhere: its row as the owner last wrote it, to the watchers.
void JobManager::refresh_remote_watch(const std::string& id) {
  Result<std::optional<JobRecord>> found = store_.jobs().get(id);
  if (!found.is_ok() || !*found) return;
  const JobRecord& job = **found;
  auto it = remote_watched_.find(id);
  if (it == remote_watched_.end()) return;
  EventKind kind = job.state == it->second ? EventKind::kProgress : EventKind::kState;
  it->second = job.state;
  publish(kind, job);
  if (is_terminal(job.state)) remote_watched_.erase(it);
}

}  // namespace tc::daemon
