#include "service/daemon/jobs/job_manager.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "pipeline/core/user_text.h"
#include "pipeline/exec/executor.h"
#include "pipeline/io/confined_path.h"
#include "pipeline/io/temp_file.h"
#include "pipeline/package/package_dir.h"
#include "pipeline/spec/thumbnail_spec.h"
#include "service/daemon/worker/worker_process.h"

namespace tc::daemon {
namespace {

using Clock = std::chrono::steady_clock;

double monotonic_s() {
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

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

// A store that cannot be reached now (a lost connection: retryable) is UNAVAILABLE, for the
// client to retry; anything else is a failure of the store itself.
ApiStatus store_failure(const Status& status) {
  if (status.retryable())
    return {ApiCode::kUnavailable, ApiReason::kStoreUnavailable, "",
            "the job store cannot be reached now: " + status.message()};
  return {ApiCode::kInternal, status.message()};
}

// The spec the worker gets: the stored one, pinned to the device the scheduler chose.
JobSpec spec_for_device(JobSpec spec, const SchedDevice& device) {
  if (device.backend != BackendKind::kSoftware && spec.device.empty()) spec.device = device.path;
  return spec;
}

void log_store_error(const Status& status) {
  if (!status.is_ok()) spdlog::error("{}", status.message());
}

RowState row_of(const JobRecord& job) {
  return {job.state, job.attempt, false};
}

// Unlinks the temp file of `name` in `dir`; false when there was none.
bool remove_partial(const io::DirEntry& dir, const std::string& name, int attempt) {
  std::string partial = io::partial_name(name, attempt);
  if (::unlinkat(dir.dir.get(), partial.c_str(), 0) == 0) {
    spdlog::info("removed partial output {}/{}", dir.dir_path, partial);
    return true;
  }
  if (errno != ENOENT)
    spdlog::warn("cannot remove partial output {}/{}: {}", dir.dir_path, partial,
                 std::strerror(errno));
  return false;
}

}  // namespace

QueuedJob queued_job(const JobRecord& job) {
  QueuedJob queued{job.id, job.priority, job.seq};
  queued.backend = job.spec.backend;
  queued.device_path = job.spec.device;
  return queued;
}

void remove_partial_outputs(const JobSpec& spec, int attempt,
                            const std::vector<std::string>& media_roots) {
  // Through the roots' directory fds, as the worker wrote them: an output directory swapped for
  // a symlink since then cannot point the unlink elsewhere.
  Result<io::Roots> roots = io::Roots::open_media_roots(media_roots);
  if (!roots.is_ok()) {
    spdlog::warn("cannot look for partial outputs: {}", roots.status().message());
    return;
  }
  if (spec.package.on()) {  // a package's partial directory, with everything in it
    Result<io::DirEntry> dir = roots->open_output_parent(spec.package.dir);
    if (dir.is_ok() &&
        package::remove_tree(dir->dir.get(), io::partial_name(dir->name, attempt)) != 0)
      spdlog::warn("cannot remove the partial package of {}", spec.package.dir);
    return;
  }
  for (const OutputSpec& output : spec.outputs) {
    Result<io::DirEntry> dir = roots->open_output_dir(output.path);
    if (!dir.is_ok()) continue;  // no directory, or not one we may touch: nothing of ours there
    remove_partial(*dir, dir->name, attempt);
  }
  // Thumbnails beside the outputs: the index, and sheets numbered from 1 until one is missing.
  if (!spec.thumbnails.on || spec.outputs.empty()) return;
  Result<io::DirEntry> dir = roots->open_output_dir(spec.outputs.front().path);
  if (!dir.is_ok()) return;
  remove_partial(*dir, std::string(kThumbnailIndex), attempt);
  for (int sheet = 1; remove_partial(*dir, sheet_file_name(sheet), attempt); ++sheet) {
  }
}

JobReport attach_engine_usage(JobReport report, metrics::EngineUsage usage) {
  if (report.wall_s > 0 && report.cpu_s > 0) usage.cpu_cores = report.cpu_s / report.wall_s;
  report.engines = std::move(usage);
  return report;
}

std::optional<metrics::EngineUsage> usage_to_learn(const WorkerOutcome& outcome,
                                                   const metrics::EngineUsage& sampled) {
  if (outcome.status.is_ok()) return attach_engine_usage(outcome.report, sampled).engines;
  if (sampled.samples > 0) return sampled;
  return std::nullopt;
}

JobManager::JobManager(ManagerOptions options, JobStore store, Scheduler scheduler)
    : options_(std::move(options)), store_(std::move(store)), scheduler_(std::move(scheduler)) {}

JobManager::~JobManager() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    for (auto& [id, running] : running_) running->stop = kStopShutdown;
    wake_dispatcher();
  }
  if (dispatcher_.joinable()) dispatcher_.join();
  if (listener_.joinable()) listener_.join();
  for (auto& [id, running] : running_)
    if (running->thread.joinable()) running->thread.join();
  pool_.reset();  // no job thread takes from it any more
}

Status JobManager::start() {
  TC_RETURN_IF_ERROR(take_orphans(options_.node_id));
  TC_RETURN_IF_ERROR(remove_ended_partials());
  {
    std::lock_guard lock(mutex_);
    TC_RETURN_IF_ERROR(learn_offers());
  }
  events_ = store_.leases().events();
  pool_ = std::make_unique<WorkerPool>(worker_launch(), scheduler_.devices(), options_.warm);
  dispatcher_ = std::thread([this] { dispatch_loop(); });
  if (events_) listener_ = std::thread([this] { listen_loop(); });
  return {};
}

ApiStatus JobManager::create(NewJob request, JobRecord& job) {
  {
    std::lock_guard lock(mutex_);
    if (!accepting_) return {ApiCode::kUnavailable, "the daemon is shutting down"};
  }
  TC_API_RETURN_IF_ERROR(apply_policy(request.spec, options_.policy));
  if (!request.webhook_url.empty() && !options_.job_json)
    return {ApiCode::kFailedPrecondition,
            "webhook_url: this daemon has no webhook_secret_file, so it cannot sign webhooks"};
  std::lock_guard lock(mutex_);
  if (!request.request_id.empty()) {
    Result<std::optional<JobRecord>> existing =
        store_.jobs().find_by_request_id(request.request_id);
    if (!existing.is_ok()) return store_failure(existing.status());
    if (*existing) {
      job = std::move(**existing);
      overlay_progress(job);
      return {};
    }
  }
  Result<int> queued = store_.jobs().count_in_state(JobState::kQueued);
  if (!queued.is_ok()) return store_failure(queued.status());
  if (*queued >= options_.max_queue)
    return {ApiCode::kResourceExhausted,
            "the queue is full: " + std::to_string(*queued) + " jobs waiting (max_queue)"};
  job = JobRecord{};
  job.id = new_job_id();
  job.request_id = request.request_id;
  job.priority = request.priority;
  job.labels = std::move(request.labels);
  job.spec = std::move(request.spec);
  job.create_ms = now_ms();
  job.webhook_url = std::move(request.webhook_url);
  Result<bool> inserted =
      job.webhook_url.empty()
          ? store_.jobs().insert(job)
          : store_.jobs().insert_notifying(job, notice_of(job, options_.job_json(job)));
  if (!inserted.is_ok()) return store_failure(inserted.status());
  spdlog::info("job {}: queued ({})", job.id, quote_value(job.spec.input));
  wake_dispatcher();
  return {};
}

ApiStatus JobManager::get(const std::string& id, JobRecord& job) {
  std::lock_guard lock(mutex_);
  Result<std::optional<JobRecord>> found = store_.jobs().get(id);
  if (!found.is_ok()) return store_failure(found.status());
  if (!*found) return not_found(id);
  job = std::move(**found);
  overlay_progress(job);
  return {};
}

ApiStatus JobManager::list(std::optional<JobState> state, int page_size,
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
  std::lock_guard lock(mutex_);
  Result<std::vector<JobRecord>> jobs = store_.jobs().list(state, before, size + 1);
  if (!jobs.is_ok()) return store_failure(jobs.status());
  page.jobs = std::move(*jobs);
  page.next_page_token.clear();
  if (static_cast<int>(page.jobs.size()) > size) page.cut(size);
  for (JobRecord& job : page.jobs) overlay_progress(job);
  return {};
}

void JobPage::cut(size_t count) {
  if (count == 0 || count >= jobs.size()) return;
  jobs.resize(count);
  next_page_token = std::to_string(jobs.back().seq);
}

ApiStatus JobManager::cancel(const std::string& id, JobRecord& job) {
  std::lock_guard lock(mutex_);
  // Twice at most: a queued job claimed meanwhile is cancelled as a running one.
  for (int look = 0; look < 2; ++look) {
    Result<std::optional<JobRecord>> found = store_.jobs().get(id);
    if (!found.is_ok()) return store_failure(found.status());
    if (!*found) return not_found(id);
    job = std::move(**found);
    if (is_terminal(job.state))
      return {ApiCode::kFailedPrecondition,
              "job '" + id + "' has already ended (" + std::string(state_name(job.state)) + ")"};
    if (job.state == JobState::kRunning) {
      // Accepted in the job's row, where the publish gate looks: an accepted cancel ends the
      // job CANCELLED with nothing published, a refused one leaves it to succeed.
      Result<CancelAnswer> asked = store_.jobs().request_cancel(id);
      if (!asked.is_ok()) return store_failure(asked.status());
      if (*asked == CancelAnswer::kPublishing)
        return {ApiCode::kFailedPrecondition,
                "job '" + id + "' is ending: its outputs are being published"};
      if (*asked == CancelAnswer::kNotRunning) continue;  // it ended or was re-queued meanwhile
      if (auto it = running_.find(id); it != running_.end() && !it->second->done) {
        // The job thread sees the request, stops the worker and writes CANCELLED.
        stop_running(id, kStopCancel, "cancel requested");
        overlay_progress(job);
      } else {
        // Another node runs it: the store tells that node (StoreEvents), which stops its worker.
        spdlog::info("job {}: cancel asked of node {}", id, job.node);
      }
      return {};
    }
    Result<bool> cancelled = cancel_queued(job);
    if (!cancelled.is_ok()) return store_failure(cancelled.status());
    if (*cancelled) return {};
  }
  return {ApiCode::kUnavailable, ApiReason::kUnspecified, "",
          "job '" + id + "' is changing state: try again"};
}

// False when the job left the queue meanwhile (a node claimed it).
Result<bool> JobManager::cancel_queued(JobRecord& job) {
  RowState expected = row_of(job);
  job.state = JobState::kCancelled;
  job.end_ms = now_ms();
  job.error = Status(Code::kCancelled, "cancelled by request before it started");
  TC_ASSIGN_OR_RETURN(bool stored, save(job, expected));
  if (!stored) return false;
  spdlog::info("job {}: cancelled while queued", job.id);
  publish(EventKind::kState, job);
  return true;
}

void JobManager::stop_running(const std::string& id, int reason, const char* why) {
  auto it = running_.find(id);
  if (it == running_.end() || it->second->done) return;
  int none = kStopNone;
  if (it->second->stop.compare_exchange_strong(none, reason)) spdlog::info("job {}: {}", id, why);
}

ApiStatus JobManager::watch(const std::string& id, std::shared_ptr<JobWatcher> watcher) {
  std::lock_guard lock(mutex_);
  Result<std::optional<JobRecord>> found = store_.jobs().get(id);
  if (!found.is_ok()) return store_failure(found.status());
  if (!*found) return not_found(id);
  JobRecord& job = **found;
  overlay_progress(job);
  // Under the lock: no event can slip in before the snapshot.
  watcher->on_event(EventKind::kSnapshot, job);
  watchers_.emplace(id, std::move(watcher));
  // Run by another node, or not yet claimed: the store's events bring its changes.
  if (!running_.count(id) && !is_terminal(job.state)) remote_watched_.emplace(id, job.state);
  return {};
}

void JobManager::unwatch(const std::string& id, const JobWatcher* watcher) {
  std::lock_guard lock(mutex_);
  auto [first, last] = watchers_.equal_range(id);
  for (auto it = first; it != last; ++it)
    if (it->second.get() == watcher) {
      watchers_.erase(it);
      break;
    }
  if (!watchers_.count(id)) remote_watched_.erase(id);
}

std::vector<SchedDevice> JobManager::devices() {
  std::lock_guard lock(mutex_);
  return scheduler_.devices_now();
}

void JobManager::publish(EventKind kind, const JobRecord& job) {
  auto [first, last] = watchers_.equal_range(job.id);
  for (auto it = first; it != last; ++it) it->second->on_event(kind, job);
}

void JobManager::overlay_progress(JobRecord& job) {
  auto it = running_.find(job.id);
  if (it != running_.end() && job.state == JobState::kRunning) {
    job.progress = it->second->job.progress;
    job.engines = it->second->job.engines;
  }
}

void JobManager::wake_dispatcher() {
  changed_ = true;
  wake_.notify_all();
}

void JobManager::dispatch_loop() {
  std::unique_lock lock(mutex_);
  auto next_purge = Clock::now();
  auto poll = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(options_.claim_poll_s));
  while (!stopping_) {
    changed_ = false;
    reap_finished_threads();
    while (accepting_ && claim_one()) {
    }
    if (Clock::now() >= next_purge) {
      lock.unlock();
      purge_expired();
      lock.lock();
      next_purge = Clock::now() + std::chrono::minutes(1);
    }
    // changed_ catches a wake-up that came while the lock was released for the purge. The
    // poll is the safety net for a wake-up from another node that never came.
    wake_.wait_until(lock, std::min(next_purge, Clock::now() + poll),
                     [this] { return changed_ || stopping_; });
  }
}

// Claims the best job a free slot can run, and starts it; false when there is none.
bool JobManager::claim_one() {
  // A node that joined since the last beat may offer a backend this one would otherwise run
  // in software (and fail): a look at the nodes first, at most once a second.
  if (store_.shared() && Clock::now() - offers_learned_ > std::chrono::seconds(1))
    (void)learn_offers();
  std::vector<std::string> backends = scheduler_.claimable(offered_anywhere_);
  if (backends.empty()) return false;
  int device = -1;
  std::string placed;
  ClaimRequest request{options_.node_id, std::move(backends), lease_ms(options_.lease_s)};
  Result<std::optional<JobRecord>> claimed =
      store_.jobs().claim(request, [&](JobRecord& job, std::optional<Notification>& notice) {
        placed = job.id;
        return take_job(job, notice, device);
      });
  // Said once per outage, not at every poll: the beat reports the store's health.
  if (claimed.is_ok() == claim_failing_) {
    claim_failing_ = !claimed.is_ok();
    if (claim_failing_) spdlog::warn("cannot claim jobs: {}", claimed.status().message());
  }
  if (!claimed.is_ok() || !*claimed) {
    if (device >= 0) scheduler_.release(device, placed);  // placed, but the write did not happen
    return false;
  }
  start_job(std::move(**claimed), device);
  return true;
}

// The claim's choice: a job goes to the device the scheduler places it on, in its running form.
bool JobManager::take_job(JobRecord& job, std::optional<Notification>& notice, int& device) {
  std::optional<int> placed = scheduler_.place(queued_job(job));
  if (!placed) return false;
  device = *placed;
  job.state = JobState::kRunning;
  job.attempt += 1;
  job.start_ms = now_ms();
  job.end_ms = 0;
  job.device = scheduler_.devices()[device].name;
  job.node = options_.node_id;
  job.progress = {};
  job.error = {};
  if (!job.webhook_url.empty() && options_.job_json)
    notice = notice_of(job, options_.job_json(job));
  return true;
}

void JobManager::start_job(JobRecord job, int device_index) {
  const SchedDevice& device = scheduler_.devices()[device_index];
  auto running = std::make_unique<Running>();
  running->job = std::move(job);
  running->row = row_of(running->job);
  running->job.engines.unavailable_reason = "not available: not sampled yet";
  running->device = device_index;
  running->backend = device.backend;
  running->device_path = device.path;
  const JobRecord& started = running->job;
  spdlog::info("job {}: running on {} (attempt {})", started.id, device.name, started.attempt);
  remote_watched_.erase(started.id);
  publish(EventKind::kState, started);
  Running* raw = running.get();
  running->thread = std::thread(
      [this, spec = spec_for_device(started.spec, device), raw] { run_job_thread(spec, raw); });
  running_[started.id] = std::move(running);
}

WorkerLaunch JobManager::worker_launch() const {
  WorkerLaunch launch;
  launch.executable = options_.worker_executable;
  launch.memory_mb = options_.worker_memory_mb;
  launch.max_pixels = options_.policy.max_pixels;
  launch.media_roots = options_.policy.roots;
  launch.protocols = options_.policy.protocols;
  launch.landlock = options_.worker_landlock;
  launch.gop_parallel = options_.gop_parallel;
  launch.gpu_cache = options_.gpu_cache;
  launch.devices_json = options_.devices_json;
  return launch;
}

Result<std::unique_ptr<WorkerProcess>> JobManager::start_worker(JobSpec spec, Running& running) {
  std::unique_ptr<WorkerProcess> worker = pool_->take(static_cast<size_t>(running.device));
  bool warm = running.warm_worker = worker != nullptr;
  if (!warm) {
    TC_ASSIGN_OR_RETURN(worker, pool_->start_worker(worker_launch()));
  }
  (void)worker->send_job({std::move(spec), running.job.attempt, running.job.id});
  std::lock_guard lock(mutex_);
  DeviceTotals& totals = device_totals_[running.job.device];
  (warm ? totals.warm_starts : totals.cold_starts) += 1;
  return worker;
}

void JobManager::run_job_thread(JobSpec spec, Running* running) {
  const std::string id = running->job.id;
  WorkerOutcome outcome;
  Result<std::unique_ptr<WorkerProcess>> worker = start_worker(std::move(spec), *running);
  std::unique_ptr<metrics::JobSampler> sampler;
  if (!worker.is_ok()) {
    outcome.status = worker.status();
  } else {
    sampler = make_sampler(*running, (*worker)->pid());
    auto interval = std::chrono::duration<double>(options_.sample_interval_s);
    auto next_sample = Clock::now() + interval;
    auto tick = [&] {
      if (Clock::now() < next_sample) return;
      next_sample += std::chrono::duration_cast<Clock::duration>(interval);
      if (next_sample < Clock::now()) next_sample = Clock::now() + interval;
      sampler->sample(monotonic_s());
      on_sample(*running, *sampler);
    };
    outcome = supervise(
        **worker, options_.supervise, running->stop,
        [this, &id](const Progress& p) { on_progress(id, p); }, tick,
        [this, running] { return may_publish(*running); });
  }
  metrics::EngineUsage engines = sampler ? sampler->average() : metrics::EngineUsage{};
  if (running->stop.load() == kStopLost) {
    // Another node runs it now: nothing of this attempt is written, its partials go.
    remove_partial_outputs(running->job.spec, running->job.attempt, options_.policy.roots);
  } else {
    store_final(*running, finished_record(*running, outcome, engines));
  }
  // The pool's worker goes back only when it succeeded and waits for more; a cold one never
  // does: its life is tied to this thread (PR_SET_PDEATHSIG).
  if (running->warm_worker && worker.is_ok()) {
    bool again = outcome.ready_again && running->stop.load() == kStopNone;
    pid_t pid = (*worker)->pid();  // before the worker may move
    pool_->job_ended(static_cast<size_t>(running->device), pid,
                     again ? std::move(*worker) : nullptr);
  }
  std::lock_guard lock(mutex_);
  running->done = true;
  scheduler_.release(running->device, id, usage_to_learn(outcome, engines));
  wake_dispatcher();
}

// fdinfo for every job (an "auto" job on the software device may still open a GPU); NVML too
// for cuda jobs, whose NVIDIA driver has no DRM usage stats.
std::unique_ptr<metrics::JobSampler> JobManager::make_sampler(const Running& running,
                                                              int pid) const {
  metrics::SamplerOptions options;
  options.proc_root = options_.proc_root;
  options.worker_predates_job = running.warm_worker;
  if (running.backend == BackendKind::kSoftware) options.no_gpu_note = " (a software job)";
  if (running.backend == BackendKind::kCuda) {
    options.nvml = true;
    options.nvml_device = static_cast<unsigned>(std::atoi(running.device_path.c_str()));
    options.nvml_library = metrics::Nvml::shared(options.nvml_reason);
  }
  return std::make_unique<metrics::JobSampler>(std::move(options), pid, monotonic_s());
}

void JobManager::on_sample(Running& running, const metrics::JobSampler& sampler) {
  std::lock_guard lock(mutex_);
  running.job.engines = sampler.live();
  const metrics::EngineUsage& live = running.job.engines;
  // The load fell below the device's capacity: a held job may start now, not at the next poll.
  if (scheduler_.sample(running.job.id, live)) wake_dispatcher();
  if (!live.available) return;
  DeviceTotals& totals = device_totals_[running.job.device];
  for (const metrics::EngineBusy& e : live.engines)
    totals.engine_busy_s[e.engine] += e.busy_percent / 100 * live.interval_s * e.capacity;
}

// The job's record once its worker ended. Its partial outputs are removed on failure.
JobRecord JobManager::finished_record(const Running& running, const WorkerOutcome& outcome,
                                      const metrics::EngineUsage& engines) {
  JobRecord job;
  int stop = running.stop.load();
  {
    std::lock_guard lock(mutex_);
    job = running.job;
  }
  if (!outcome.status.is_ok()) remove_partial_outputs(job.spec, job.attempt, options_.policy.roots);
  if (stop == kStopShutdown && !outcome.status.is_ok()) {
    // Not the job's fault: the next start runs it again without using up an attempt.
    job.state = JobState::kQueued;
    job.attempt -= 1;
    job.start_ms = 0;
    job.device.clear();
    job.node.clear();
    job.progress = {};
    spdlog::info("job {}: stopped by shutdown, left queued", job.id);
  } else if (outcome.status.is_ok()) {
    job.state = JobState::kSucceeded;
    job.report = attach_engine_usage(outcome.report, engines);
    spdlog::info("job {}: succeeded", job.id);
  } else if (stop == kStopCancel) {
    job.state = JobState::kCancelled;
    job.error = Status(Code::kCancelled, "cancelled by request");
    spdlog::info("job {}: cancelled", job.id);
  } else {
    job.state = JobState::kFailed;
    job.error = outcome.status;
    spdlog::warn("job {}: failed: {}", job.id, escape_text(outcome.status.to_string()));
  }
  if (is_terminal(job.state)) job.end_ms = now_ms();
  job.engines = {};
  return job;
}

// Written however long the store is away: a state change is never lost. Not written when
// another node took the job over (its attempt's row moved on): that node's outcome stands.
void JobManager::store_final(Running& running, const JobRecord& job) {
  bool warned = false;
  while (true) {
    Result<bool> written = save(job, running.row);
    std::unique_lock lock(mutex_);
    if (written.is_ok()) {
      if (!*written) {
        spdlog::warn(
            "job {}: attempt {} was taken over by another node: its end ({}) is not "
            "recorded",
            job.id, job.attempt, state_name(job.state));
        return;
      }
      running.job = job;
      if (is_terminal(job.state)) count_finished(job);
      publish(EventKind::kState, job);
      return;
    }
    // A daemon shutting down cannot wait for the store: the lease runs out, another node
    // (or this one, restarted) runs the job again.
    if (!accepting_)
      return spdlog::error("job {}: its end is lost ({}): it will run again", job.id,
                           written.status().message());
    if (!warned)
      spdlog::warn("job {}: its end is not stored yet ({}): trying until the store is back", job.id,
                   written.status().message());
    warned = true;
    wake_.wait_for(lock, std::chrono::seconds(1));
  }
}

Result<bool> JobManager::save(const JobRecord& job, const std::optional<RowState>& expected) {
  if (job.webhook_url.empty() || !options_.job_json)
    return store_.jobs().write(job, expected, nullptr);
  Notification notice = notice_of(job, options_.job_json(job));
  return store_.jobs().write(job, expected, &notice);
}

void JobManager::count_finished(const JobRecord& job) {
  if (job.start_ms > 0 && job.end_ms >= job.start_ms)
    job_durations_[std::string(state_name(job.state))].observe((job.end_ms - job.start_ms) / 1e3);
  if (job.state != JobState::kSucceeded || !job.report) return;
  DeviceTotals& totals = device_totals_[job.device];
  totals.frames_decoded += job.report->frames_decoded;
  for (const OutputReport& output : job.report->outputs)
    if (output.encoder != "copy") totals.frames_encoded += output.frames;
  count_quality(*job.report);
}

void JobManager::count_quality(const JobReport& report) {
  for (const OutputReport& output : report.outputs) {
    if (!output.quality) continue;
    if (output.quality->psnr_avg_db)
      output_psnr_[report.backend].observe(*output.quality->psnr_avg_db);
    if (output.quality->ssim) output_ssim_[report.backend].observe(*output.quality->ssim);
  }
}

NodeSnapshot JobManager::node_snapshot() {
  NodeSnapshot snapshot;
  std::lock_guard lock(mutex_);
  for (JobState state : {JobState::kQueued, JobState::kRunning, JobState::kSucceeded,
                         JobState::kFailed, JobState::kCancelled}) {
    Result<int> count = store_.jobs().count_in_state(state);
    snapshot.jobs_by_state[std::string(state_name(state))] = count.is_ok() ? *count : 0;
  }
  snapshot.queue_depth = snapshot.jobs_by_state["queued"];
  for (const SchedDevice& d : scheduler_.devices_now()) {
    NodeSnapshot::Device device;
    device.name = d.name;
    device.backend = std::string(name_of(d.backend));
    device.slots = d.slots;
    device.running = d.running;
    device.load = d.load;
    if (auto it = device_totals_.find(d.name); it != device_totals_.end())
      device.totals = it->second;
    snapshot.devices.push_back(std::move(device));
  }
  std::vector<WorkerPool::Counts> warm =
      pool_ ? pool_->counts() : std::vector<WorkerPool::Counts>{};
  for (size_t i = 0; i < warm.size() && i < snapshot.devices.size(); ++i) {
    snapshot.devices[i].warm_ready = warm[i].ready;
    snapshot.devices[i].warm_lost = warm[i].lost;
    snapshot.devices[i].warm_failed_setup = warm[i].failed_setup;
  }
  for (const auto& [id, running] : running_) {
    if (running->done) continue;
    snapshot.running.push_back({id, running->job.device, running->job.engines});
    const metrics::EngineUsage& live = running->job.engines;
    if (!live.available) continue;
    for (NodeSnapshot::Device& device : snapshot.devices)
      if (device.name == running->job.device)
        for (const metrics::EngineBusy& e : live.engines)
          device.engine_busy_percent[e.engine] += e.busy_percent;
  }
  snapshot.job_duration = job_durations_;
  snapshot.output_psnr = output_psnr_;
  snapshot.output_ssim = output_ssim_;
  return snapshot;
}

void JobManager::on_progress(const std::string& id, const Progress& progress) {
  std::lock_guard lock(mutex_);
  auto it = running_.find(id);
  if (it == running_.end()) return;
  Running& running = *it->second;
  running.job.progress = progress;
  // Workers report every half second; watchers get about one update a second.
  if (Clock::now() - running.last_published < std::chrono::milliseconds(950)) return;
  running.last_published = Clock::now();
  publish(EventKind::kProgress, running.job);
  store_progress(running);
}

// With a shared store, watchers on other nodes read progress from it: written about once a
// second. A write the row refuses means the job was taken over: this attempt stops.
void JobManager::store_progress(Running& running) {
  if (!store_.shared() || running.done) return;
  if (Clock::now() - running.last_stored < std::chrono::milliseconds(950)) return;
  running.last_stored = Clock::now();
  Result<bool> written = store_.jobs().write(running.job, running.row, nullptr);
  if (written.is_ok() && !*written)
    stop_running(running.job.id, kStopLost, "taken over by another node: stopping");
}

void JobManager::reap_finished_threads() {
  for (auto it = running_.begin(); it != running_.end();) {
    if (!it->second->done) {
      ++it;
      continue;
    }
    if (it->second->thread.joinable()) it->second->thread.join();
    it = running_.erase(it);
  }
}

void JobManager::purge_expired() {
  int64_t cutoff = now_ms() - static_cast<int64_t>(options_.retention_hours * 3600e3);
  Result<int> purged = store_.jobs().purge_ended_before(cutoff);
  if (!purged.is_ok())
    log_store_error(purged.status());
  else if (*purged > 0)
    spdlog::info("removed {} finished jobs past retention", *purged);
}

void JobManager::shutdown(double grace_s) {
  std::unique_lock lock(mutex_);
  accepting_ = false;
  auto all_done = [this] {
    for (auto& [id, running] : running_)
      if (!running->done) return false;
    return true;
  };
  if (!all_done()) spdlog::info("shutdown: waiting up to {} s for running jobs", grace_s);
  wake_.wait_for(lock, std::chrono::duration<double>(grace_s), all_done);
  for (auto& [id, running] : running_)
    if (!running->done) running->stop = kStopShutdown;
  wake_.wait(lock, all_done);
  stopping_ = true;
  wake_dispatcher();
  lock.unlock();
  if (dispatcher_.joinable()) dispatcher_.join();
  if (listener_.joinable()) listener_.join();
  lock.lock();
  reap_finished_threads();
}

}  // namespace tc::daemon
