#include "service/daemon/jobs/cluster_membership.h"

#include <spdlog/spdlog.h>

#include "service/daemon/jobs/backend_wait_expiry.h"
#include "service/daemon/jobs/interrupted_publish.h"
#include "service/daemon/jobs/job_writes.h"
#include "service/daemon/jobs/partial_outputs.h"
#include "service/daemon/model/job_transitions.h"

namespace tc::daemon {
namespace {

Status spent_error(int attempts) {
  return Status(Code::kInternal, "the node running it stopped during each of " +
                                     std::to_string(attempts) + " attempts (max_attempts)");
}

}  // namespace

ClusterMembership::~ClusterMembership() {
  stop();
}

Status ClusterMembership::take_orphans(const std::string& own_node) {
  TC_ASSIGN_OR_RETURN(std::vector<JobRecord> orphans, parts_.store.leases().orphans(own_node));
  for (JobRecord& job : orphans) {
    bool expired = own_node.empty() || job.node != own_node;
    TC_RETURN_IF_ERROR(requeue_orphan(std::move(job), expired));
  }
  return {};
}

// A cut-off attempt's job: CANCELLED when a cancel was accepted of it (a cancel is durable: no
// later attempt runs or publishes it); SUCCEEDED when it had passed its publish gate and its
// publish is finished here (interrupted_publish.h: no output is published twice); FAILED when
// it had its last attempt; else queued again.
Status ClusterMembership::requeue_orphan(JobRecord job, bool lease_expired) {
  RowState expected{JobState::kRunning, job.attempt, lease_expired};
  std::string from = job.node;
  Status lost(Code::kInternal, "its node " + (from.empty() ? "?" : from) + " stopped", true);
  if (job.gate == AttemptGate::kCancelAsked)
    finish(job, JobState::kCancelled, Status(Code::kCancelled, "cancelled by request"),
           std::nullopt, now_ms(), AttemptOutcome::kLost);
  else if (job.gate == AttemptGate::kPublishing &&
           finish_interrupted_publish(job.spec, job.attempt, parts_.options.policy.roots) ==
               InterruptedPublish::kFinished)
    finish(job, JobState::kSucceeded, {}, std::nullopt, now_ms());
  else if (job.attempt >= parts_.options.max_attempts)
    finish(job, JobState::kFailed, spent_error(job.attempt), std::nullopt, now_ms(),
           AttemptOutcome::kLost);
  else
    requeue(job, AttemptUse::kSpent, {AttemptOutcome::kLost, lost, now_ms()});
  TC_ASSIGN_OR_RETURN(bool written,
                      save_job(parts_.store.jobs(), parts_.options.webhook_body, job, expected));
  if (!written) return {};  // another node took it over first, or its owner renewed
  remove_partial_outputs(job.spec, job.attempt, parts_.options.policy.roots);
  if (job.state == JobState::kCancelled || job.state == JobState::kSucceeded) {
    spdlog::info("job {}: {} while its node was away", job.id, state_name(job.state));
    parts_.counters.count_finished(job);
  } else if (job.state == JobState::kFailed) {
    spdlog::warn("job {}: failed after {} interrupted attempts", job.id, job.attempt);
    parts_.counters.count_finished(job);
  } else {
    spdlog::info("job {}: attempt {} on node {} was cut off: queued again", job.id, job.attempt,
                 from.empty() ? "?" : from);
  }
  parts_.hub.publish(EventKind::kState, job);
  parts_.dispatcher.wake();
  return {};
}

Status ClusterMembership::beat(const NodeRecord& node) {
  TC_RETURN_IF_ERROR(parts_.store.nodes().heartbeat(node));
  TC_RETURN_IF_ERROR(parts_.store.nodes().forget_silent(
      static_cast<int64_t>(parts_.options.node_forget_s * 1000)));
  renew_leases();
  TC_RETURN_IF_ERROR(take_orphans(""));
  TC_RETURN_IF_ERROR(parts_.dispatcher.learn_offers());
  TC_RETURN_IF_ERROR(fail_jobs_past_backend_wait(parts_));
  parts_.dispatcher.wake();
  return {};
}

// A job whose lease did not renew was taken over (this node was away too long): its worker
// stops and writes nothing. A cancel asked through another node is heard here too, should its
// notification have been missed.
void ClusterMembership::renew_leases() {
  // Only the jobs running now are judged: one claimed while the store answers is not in `held`
  // yet, and must not be taken for lost.
  std::map<std::string, int> running = parts_.running.attempts();  // id -> attempt
  std::vector<std::string> ids;
  for (const auto& [id, attempt] : running) ids.push_back(id);
  const ManagerOptions& options = parts_.options;
  Result<std::vector<HeldJob>> held =
      parts_.store.leases().renew_leases(options.node_id, ids, lease_ms(options.lease_s));
  if (!held.is_ok()) return spdlog::error("{}", held.status().message());
  std::map<std::string, HeldJob> by_id;
  for (HeldJob& job : *held) by_id[job.id] = job;
  for (const auto& [id, attempt] : running) {
    auto it = by_id.find(id);
    if (it == by_id.end() || it->second.attempt != attempt)
      parts_.running.stop(id, kStopLost, "its lease was taken over by another node: stopping");
    else if (it->second.cancel_requested)
      parts_.running.stop(id, kStopCancel, "cancel requested through another node");
  }
}

void ClusterMembership::listen() {
  events_ = parts_.store.leases().events();
  if (events_) listener_ = std::thread([this] { listen_loop(); });
}

void ClusterMembership::stop() {
  stopping_ = true;
  if (listener_.joinable()) listener_.join();
}

void ClusterMembership::listen_loop() {
  while (!stopping_) {
    std::vector<StoreEvent> events = events_->wait(parts_.options.claim_poll_s);
    if (events.empty()) events.push_back({StoreEvent::Kind::kMissed, ""});  // the poll
    for (const StoreEvent& event : events) on_store_event(event);
  }
}

void ClusterMembership::on_store_event(const StoreEvent& event) {
  switch (event.kind) {
    case StoreEvent::Kind::kQueued:
      return parts_.dispatcher.wake();
    case StoreEvent::Kind::kCancel:
      return parts_.running.stop(event.job_id, kStopCancel,
                                 "cancel requested through another node");
    case StoreEvent::Kind::kChanged:
      if (parts_.hub.is_remote(event.job_id)) refresh_remote_watch(event.job_id);
      return;
    case StoreEvent::Kind::kMissed:
      parts_.dispatcher.wake();
      for (const std::string& id : parts_.hub.remote()) refresh_remote_watch(id);
      return;
  }
}

// A job watched here and run elsewhere: its row as the owner last wrote it, to the watchers.
// One that started here meanwhile is published by its attempt instead.
void ClusterMembership::refresh_remote_watch(const std::string& id) {
  Result<std::optional<JobRecord>> found = parts_.store.jobs().get(id);
  if (!found.is_ok() || !*found) return;
  if (parts_.running.runs(id)) return parts_.hub.runs_here(id);
  parts_.hub.refresh(**found);
}

}  // namespace tc::daemon
