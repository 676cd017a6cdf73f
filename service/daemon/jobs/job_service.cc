#include "service/daemon/jobs/job_service.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>

#include "pipeline/core/user_text.h"
#include "service/daemon/jobs/job_writes.h"
#include "service/daemon/model/job_transitions.h"

namespace tc::daemon {
namespace {

std::string new_job_id() {
  static std::mutex mutex;
  static std::mt19937_64 random{std::random_device{}()};
  std::lock_guard lock(mutex);
  char text[24];
  std::snprintf(text, sizeof text, "j-%016llx", static_cast<unsigned long long>(random()));
  return text;
}

ApiStatus not_found(const std::string& id) {
  return {ApiCode::kNotFound, "job " + quote_value(id) + " not found"};
}

JobRecord new_record(const Caller& caller, NewJob& request) {
  JobRecord job;
  job.id = new_job_id();
  job.tenant = caller.tenant;
  job.request_id = request.request_id;
  job.priority = request.priority;
  job.labels = std::move(request.labels);
  job.spec = std::move(request.spec);
  job.create_ms = now_ms();
  job.webhook_url = std::move(request.webhook_url);
  return job;
}

// The policy a caller's job is checked against: the node's, with a tenant's own media roots in
// place of the node's unless the caller is an admin.
RequestPolicy policy_for(const Caller& caller, const RequestPolicy& node) {
  if (caller.admin) return node;
  RequestPolicy policy = node;
  policy.roots = tenant_policy_roots(caller.media_roots, node.roots);
  return policy;
}

}  // namespace

// A store that cannot be reached now (a lost connection: retryable) is UNAVAILABLE, for the
// client to retry; anything else is a failure of the store itself.
ApiStatus store_failure(const Status& status) {
  if (status.retryable())
    return {ApiCode::kUnavailable, ApiReason::kStoreUnavailable, "",
            "the job store cannot be reached now: " + status.message()};
  return {ApiCode::kInternal, status.message()};
}

ApiStatus JobService::create(const Caller& caller, NewJob request, JobRecord& job) {
  if (!parts_.dispatcher.accepting()) return {ApiCode::kUnavailable, "the daemon is shutting down"};
  TC_API_RETURN_IF_ERROR(apply_policy(request.spec, policy_for(caller, parts_.options.policy)));
  if (!request.webhook_url.empty() && !parts_.options.webhook_body)
    return {ApiCode::kFailedPrecondition,
            "webhook_url: this daemon has no webhook_secret_file, so it cannot sign webhooks"};
  if (!request.request_id.empty()) {
    Result<std::optional<JobRecord>> existing =
        parts_.jobs.find_by_request_id(caller.tenant, request.request_id);
    if (!existing.is_ok()) return store_failure(existing.status());
    if (*existing) {
      job = std::move(**existing);
      parts_.running.overlay(job);
      return {};
    }
  }
  return admit(caller, request, job);
}

// Within the queue bound: stored and the dispatcher woken. Two requests at once may both find
// room for the last place: the bound is a guard against a runaway client, not an exact count.
namespace {
// Why a queued job waits: its tenant at a quota first (tenant_quota.h: the claim passes its jobs
// over whatever the nodes offer), else for a node. The quota needs a store read, so GetJob and
// ListJobs say it, not the watch hub's events (the hub holds its lock while it fills them).
// `holds`: the tenants' holds read so far in this call (a page reads each tenant's once).
std::string waiting_reason(JobQueue& jobs, const Dispatcher& dispatcher, const JobRecord& job,
                           std::map<std::string, std::string>& holds) {
  if (job.state == JobState::kQueued) {
    auto held = holds.find(job.tenant);
    if (held == holds.end()) {
      Result<TenantLoad> load = jobs.tenant_load(job.tenant);
      std::string reason = load.is_ok() ? hold_reason(job.tenant, *load) : "";
      held = holds.emplace(job.tenant, std::move(reason)).first;
    }
    if (!held->second.empty()) return held->second;
  }
  return dispatcher.waiting_reason(job);
}

// A job its tenant's quota refused (tenant_quota.h) is RESOURCE_EXHAUSTED naming the quota, as
// the queue bound is; any other failure is the store's.
ApiStatus refused_or_failed(const Status& status) {
  std::optional<std::string> quota = refused_quota(status);
  if (!quota) return store_failure(status);
  return {ApiCode::kResourceExhausted, ApiReason::kLimitExceeded, *quota,
          status.message().substr(quota->size() + 2)};
}
}  // namespace

ApiStatus JobService::admit(const Caller& caller, NewJob& request, JobRecord& job) {
  Result<int> queued = parts_.jobs.count_in_state(JobState::kQueued);
  if (!queued.is_ok()) return store_failure(queued.status());
  if (*queued >= parts_.options.max_queue)
    return {ApiCode::kResourceExhausted,
            "the queue is full: " + std::to_string(*queued) + " jobs waiting (max_queue)"};
  job = new_record(caller, request);
  const JobJson& webhook_body = parts_.options.webhook_body;
  Result<bool> inserted = job.webhook_url.empty() ? parts_.jobs.insert(job)
                                                  : parts_.jobs.insert_notifying(
                                                        job, notice_of(job, webhook_body(job)));
  if (!inserted.is_ok()) return refused_or_failed(inserted.status());
  spdlog::info("job {}: queued ({})", job.id, quote_value(job.spec.input));
  parts_.dispatcher.wake();
  return {};
}

ApiStatus JobService::get(const Caller& caller, const std::string& id, JobRecord& job) {
  Result<std::optional<JobRecord>> found = parts_.jobs.get(id);
  if (!found.is_ok()) return store_failure(found.status());
  if (!*found || !caller.sees((*found)->tenant)) return not_found(id);
  job = std::move(**found);
  parts_.running.overlay(job);
  std::map<std::string, std::string> holds;
  job.waiting_reason = waiting_reason(parts_.jobs, parts_.dispatcher, job, holds);
  return {};
}

ApiStatus JobService::list(const Caller& caller, std::optional<JobState> state, int page_size,
                           const std::string& page_token, JobPage& page) {
  if (page_size < 0) return {ApiCode::kInvalidArgument, "page_size: must not be negative"};
  int size = page_size == 0 ? 50 : std::min(page_size, 500);
  int64_t before = 0;
  if (!page_token.empty()) {
    char* end = nullptr;
    before = std::strtoll(page_token.c_str(), &end, 10);
    if (*end != '\0' || before <= 0)
      return {ApiCode::kInvalidArgument, "page_token: " + quote_value(page_token) +
                                             " is not a token this "
                                             "server gave"};
  }
  Result<std::vector<JobRecord>> jobs =
      parts_.jobs.list(state, before, size + 1, caller.list_scope());
  if (!jobs.is_ok()) return store_failure(jobs.status());
  page.jobs = std::move(*jobs);
  page.next_page_token.clear();
  if (static_cast<int>(page.jobs.size()) > size) page.cut(size);
  std::map<std::string, std::string> holds;
  for (JobRecord& job : page.jobs) {
    parts_.running.overlay(job);
    job.waiting_reason = waiting_reason(parts_.jobs, parts_.dispatcher, job, holds);
  }
  return {};
}

void JobPage::cut(size_t count) {
  if (count == 0 || count >= jobs.size()) return;
  jobs.resize(count);
  next_page_token = std::to_string(jobs.back().seq);
}

ApiStatus JobService::cancel(const Caller& caller, const std::string& id, JobRecord& job) {
  // Twice at most: a queued job claimed meanwhile is cancelled as a running one.
  for (int look = 0; look < 2; ++look)
    if (std::optional<ApiStatus> done = cancel_once(caller, id, job)) return *done;
  return {ApiCode::kUnavailable, ApiReason::kUnspecified, "",
          "job '" + id + "' is changing state: try again"};
}

std::optional<ApiStatus> JobService::cancel_once(const Caller& caller, const std::string& id,
                                                 JobRecord& job) {
  Result<std::optional<JobRecord>> found = parts_.jobs.get(id);
  if (!found.is_ok()) return store_failure(found.status());
  if (!*found || !caller.sees((*found)->tenant)) return not_found(id);
  job = std::move(**found);
  if (is_terminal(job.state))
    return ApiStatus{ApiCode::kFailedPrecondition, "job '" + id + "' has already ended (" +
                                                       std::string(state_name(job.state)) + ")"};
  if (job.state == JobState::kRunning) return cancel_running(id, job);
  Result<bool> cancelled = cancel_queued(job);
  if (!cancelled.is_ok()) return store_failure(cancelled.status());
  if (*cancelled) return ApiStatus{};
  return std::nullopt;
}

// Accepted in the job's row, where the publish gate looks: an accepted cancel ends the job
// CANCELLED with nothing published, a refused one leaves it to succeed. None: it ended or was
// re-queued meanwhile (look again).
std::optional<ApiStatus> JobService::cancel_running(const std::string& id, JobRecord& job) {
  Result<CancelAnswer> asked = parts_.jobs.request_cancel(id);
  if (!asked.is_ok()) return store_failure(asked.status());
  if (*asked == CancelAnswer::kPublishing)
    return ApiStatus{ApiCode::kFailedPrecondition,
                     "job '" + id + "' is ending: its outputs are being published"};
  if (*asked == CancelAnswer::kNotRunning) return std::nullopt;
  if (parts_.running.runs(id)) {
    // The job thread sees the request, stops the worker and writes CANCELLED.
    parts_.running.stop(id, kStopCancel, "cancel requested");
    parts_.running.overlay(job);
  } else {
    // Another node runs it: the store tells that node (StoreEvents), which stops its worker.
    spdlog::info("job {}: cancel asked of node {}", id, job.node);
  }
  return ApiStatus{};
}

// False when the job left the queue meanwhile (a node claimed it).
Result<bool> JobService::cancel_queued(JobRecord& job) {
  RowState expected{job.state, job.attempt, false};
  finish(job, JobState::kCancelled,
         Status(Code::kCancelled, "cancelled by request before it started"), std::nullopt,
         now_ms());
  TC_ASSIGN_OR_RETURN(bool stored,
                      save_job(parts_.jobs, parts_.options.webhook_body, job, expected));
  if (!stored) return false;
  spdlog::info("job {}: cancelled while queued", job.id);
  parts_.hub.publish(EventKind::kState, job);
  return true;
}

ApiStatus JobService::watch(const Caller& caller, const std::string& id,
                            std::shared_ptr<JobWatcher> watcher) {
  const JobWatcher* raw = watcher.get();
  parts_.hub.open(id, std::move(watcher));
  Result<std::optional<JobRecord>> found = parts_.jobs.get(id);
  if (!found.is_ok() || !*found || !caller.sees((*found)->tenant)) {
    parts_.hub.close(id, raw);
    return found.is_ok() ? not_found(id) : store_failure(found.status());
  }
  JobRecord& job = **found;
  parts_.running.overlay(job);
  // Run by another node, or not yet claimed: the store's events bring its changes.
  parts_.hub.start(raw, job, !parts_.running.runs(id));
  return {};
}

void JobService::unwatch(const std::string& id, const JobWatcher* watcher) {
  parts_.hub.close(id, watcher);
}

}  // namespace tc::daemon
