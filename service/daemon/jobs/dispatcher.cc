#include "service/daemon/jobs/dispatcher.h"

#include <spdlog/spdlog.h>

#include "service/daemon/model/job_transitions.h"

namespace tc::daemon {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

QueuedJob queued_job(const JobRecord& job) {
  QueuedJob queued{job.id, job.priority, job.seq};
  queued.backend = job.spec.backend;
  queued.device_path = job.spec.device;
  return queued;
}

NodeDecisions decide(const NodeSettings& node, const Scheduler& scheduler, const JobRecord& job,
                     int device) {
  const SchedDevice& slot = scheduler.devices().at(static_cast<size_t>(device));
  NodeDecisions decisions{node, device, slot.name, slot.backend, slot.path, slot.cuda_ordinal};
  decisions.placement = scheduler.placement(queued_job(job), device);
  return decisions;
}

Dispatcher::Dispatcher(const ManagerOptions& options, JobQueue& jobs, NodeRegistry& nodes,
                       bool shared, Scheduler scheduler, RunningJobs& running)
    : options_(options),
      jobs_(jobs),
      nodes_(nodes),
      shared_(shared),
      running_(running),
      devices_(scheduler.devices()),
      scheduler_(std::move(scheduler)) {}

Dispatcher::~Dispatcher() {
  stop();
}

void Dispatcher::start(StartJob start_job) {
  start_job_ = std::move(start_job);
  thread_ = std::thread([this] { loop(); });
}

void Dispatcher::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    wake_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

void Dispatcher::wake() {
  std::lock_guard lock(mutex_);
  changed_ = true;
  wake_.notify_all();
}

void Dispatcher::release(int device, const std::string& job,
                         const std::optional<metrics::EngineUsage>& used) {
  std::lock_guard lock(mutex_);
  scheduler_.release(device, job, used);
  changed_ = true;
  wake_.notify_all();
}

void Dispatcher::sample(const std::string& job, const metrics::EngineUsage& live) {
  std::lock_guard lock(mutex_);
  // The load fell below the device's capacity: a held job may start now, not at the next poll.
  if (!scheduler_.sample(job, live)) return;
  changed_ = true;
  wake_.notify_all();
}

std::vector<SchedDevice> Dispatcher::devices_now() const {
  std::lock_guard lock(mutex_);
  return scheduler_.devices_now();
}

Status Dispatcher::learn_offers() {
  TC_ASSIGN_OR_RETURN(std::vector<NodeRecord> nodes, nodes_.list());
  // Judged by the store's clock (silent_ms): a node whose own clock runs ahead must not take
  // the others for gone. One taken for gone too soon costs a wait, never a job.
  int64_t live_within = 3 * lease_ms(options_.lease_s);
  std::lock_guard lock(mutex_);
  offers_ = offers_of(nodes, options_.node_id, scheduler_.offered(), live_within);
  offers_learned_ = Clock::now();
  return {};
}

BackendOffers Dispatcher::offers() const {
  std::lock_guard lock(mutex_);
  return offers_;
}

std::string Dispatcher::waiting_reason(const JobRecord& job) const {
  if (!shared_ || job.state != JobState::kQueued) return "";
  std::lock_guard lock(mutex_);
  return waiting_reason_of(job, offers_, options_.capable_node_wait_s);
}

void Dispatcher::loop() {
  auto next_purge = Clock::now();
  auto poll = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(options_.claim_poll_s));
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    changed_ = false;
    lock.unlock();
    running_.reap();
    while (accepting_ && claim_one()) {
    }
    if (Clock::now() >= next_purge) {
      purge_expired();
      next_purge = Clock::now() + std::chrono::minutes(1);
    }
    lock.lock();
    // changed_ catches a wake-up that came while the lock was released. The poll is the
    // safety net for a wake-up from another node that never came.
    wake_.wait_until(lock, std::min(next_purge, Clock::now() + poll),
                     [this] { return changed_ || stopping_; });
  }
}

bool Dispatcher::claim_one() {
  // A node that joined since the last beat may offer a backend this one would otherwise run
  // in software (and fail): a look at the nodes first, at most once a second.
  std::vector<std::string> backends;
  {
    std::unique_lock lock(mutex_);
    if (shared_ && Clock::now() - offers_learned_ > std::chrono::seconds(1)) {
      lock.unlock();
      (void)learn_offers();
      lock.lock();
    }
    backends = scheduler_.claimable(offers_.live);
    // In a cluster, a job whose backend no live node offers waits for one (backend_wait.h)
    // rather than taking a software slot to fail there.
    std::set<std::string> here = scheduler_.offered();
    if (shared_)
      std::erase_if(backends, [&](const std::string& b) {
        return b != name_of(BackendKind::kAuto) && !here.count(b);
      });
  }
  if (backends.empty()) return false;
  int device = -1;
  std::string placed;
  std::optional<NodeDecisions> decisions;
  ClaimRequest request{options_.node_id, std::move(backends), lease_ms(options_.lease_s),
                       lease_ms(options_.fair_share_window_s)};
  Result<std::optional<JobRecord>> claimed =
      jobs_.claim(request, [&](JobRecord& job, std::optional<Notification>& notice) {
        placed = job.id;
        return take(job, notice, device, decisions);
      });
  note_claim(claimed.status());
  if (!claimed.is_ok() || !*claimed) {
    if (device >= 0) {  // placed, but the write did not happen
      std::lock_guard lock(mutex_);
      scheduler_.release(device, placed);
    }
    return false;
  }
  start_job_(std::move(**claimed), std::move(*decisions));
  return true;
}

// Said once per outage, not at every poll: the beat reports the store's health.
void Dispatcher::note_claim(const Status& status) {
  std::lock_guard lock(mutex_);
  if (status.is_ok() != claim_failing_) return;
  claim_failing_ = !status.is_ok();
  if (claim_failing_) spdlog::warn("cannot claim jobs: {}", status.message());
}

// The claim's choice: a job goes to the device the scheduler places it on, in its running form,
// with the decisions its worker runs it under.
bool Dispatcher::take(JobRecord& job, std::optional<Notification>& notice, int& device,
                      std::optional<NodeDecisions>& decisions) {
  {
    std::lock_guard lock(mutex_);
    std::optional<int> placed = scheduler_.place(queued_job(job));
    if (!placed) return false;
    device = *placed;
    decisions = decide(options_.node, scheduler_, job, device);
  }
  start_attempt(job, devices_[device].name, options_.node_id, now_ms());
  if (!job.webhook_url.empty() && options_.webhook_body)
    notice = notice_of(job, options_.webhook_body(job));
  return true;
}

void Dispatcher::purge_expired() {
  int64_t cutoff = now_ms() - static_cast<int64_t>(options_.retention_hours * 3600e3);
  Result<int> purged = jobs_.purge_ended_before(cutoff);
  if (!purged.is_ok())
    spdlog::error("{}", purged.status().message());
  else if (*purged > 0)
    spdlog::info("removed {} finished jobs past retention", *purged);
}

}  // namespace tc::daemon
