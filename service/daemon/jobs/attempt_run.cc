#include "service/daemon/jobs/attempt_run.h"

#include <spdlog/spdlog.h>

#include <thread>

#include "pipeline/core/user_text.h"
#include "service/daemon/jobs/job_writes.h"
#include "service/daemon/jobs/partial_outputs.h"
#include "service/daemon/model/job_transitions.h"
#include "service/daemon/model/retry_policy.h"
#include "service/daemon/worker/worker_process.h"

namespace tc::daemon {
namespace {

using Clock = std::chrono::steady_clock;

double monotonic_s() {
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

// A failed attempt's history outcome: its worker crashed, or the job's error ended it.
AttemptOutcome attempt_outcome(const WorkerOutcome& outcome) {
  return outcome.crashed ? AttemptOutcome::kCrashed : AttemptOutcome::kFailed;
}

}  // namespace

struct AttemptRunner::Pace {
  Clock::time_point last_published{};
  Clock::time_point last_stored{};  // progress, in a shared store
};

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

void AttemptRunner::start_pool() {
  pool_ = std::make_unique<WorkerPool>(worker_launch(parts_.options.node),
                                       parts_.dispatcher.devices(), parts_.options.warm);
}

void AttemptRunner::stop_pool() {
  pool_.reset();
}

std::vector<WorkerPool::Counts> AttemptRunner::pool_counts() {
  return pool_ ? pool_->counts() : std::vector<WorkerPool::Counts>{};
}

void AttemptRunner::start(JobRecord job, NodeDecisions decisions) {
  auto attempt = std::make_unique<Attempt>();
  attempt->id = job.id;
  attempt->number = job.attempt;
  attempt->row = {job.state, job.attempt, false};
  attempt->device_index = decisions.device_index;
  attempt->backend = decisions.device_backend;
  attempt->cuda_ordinal = decisions.cuda_ordinal;
  attempt->device_name = decisions.device_name;
  job.engines.unavailable_reason = "not available: not sampled yet";
  attempt->set_record(job);
  spdlog::info("job {}: running on {} (attempt {})", job.id, decisions.device_name, job.attempt);
  Attempt& added = parts_.running.add(std::move(attempt));
  parts_.hub.runs_here(job.id);
  parts_.hub.publish(EventKind::kState, job);
  WorkerJob work{job.spec, job.attempt, job.id, std::move(decisions.placement)};
  added.thread = std::thread([this, work = std::move(work), node = std::move(decisions.node),
                              &added] { run(work, node, added); });
}

WorkerLaunch AttemptRunner::worker_launch(const NodeSettings& node) const {
  return {parts_.options.worker_executable, node};
}

Result<std::unique_ptr<WorkerProcess>> AttemptRunner::start_worker(const WorkerJob& job,
                                                                   const NodeSettings& node,
                                                                   Attempt& attempt, bool& warm) {
  std::unique_ptr<WorkerProcess> worker = pool_->take(static_cast<size_t>(attempt.device_index));
  warm = worker != nullptr;
  if (!warm) {
    TC_ASSIGN_OR_RETURN(worker, pool_->start_worker(worker_launch(node)));
  }
  (void)worker->send_job(job);
  parts_.counters.count_start(attempt.device_name, warm);
  return worker;
}

void AttemptRunner::run(const WorkerJob& job, const NodeSettings& node, Attempt& attempt) {
  WorkerOutcome outcome;
  metrics::EngineUsage engines;
  bool warm = false;
  AttemptLog log(parts_.logs, attempt.id, attempt.number);
  Result<std::unique_ptr<WorkerProcess>> worker = start_worker(job, node, attempt, warm);
  if (!worker.is_ok())
    outcome.status = worker.status();
  else
    outcome = supervise_worker(**worker, attempt, warm, engines, log);
  log.flush(/*now=*/true);  // before its end is stored: a client told it ended reads it whole
  if (attempt.stop.load() == kStopLost) {
    // Another node runs it now: nothing of this attempt is written, its partials go.
    JobRecord job = attempt.record();
    remove_partial_outputs(job.spec, job.attempt, parts_.options.policy.roots);
  } else {
    store_final(attempt, finished_record(attempt, outcome, engines, worker.is_ok()));
  }
  // The pool's worker goes back only when it succeeded and waits for more; a cold one never
  // does: its life is tied to this thread (PR_SET_PDEATHSIG).
  if (warm && worker.is_ok()) {
    bool again = outcome.ready_again && attempt.stop.load() == kStopNone;
    pid_t pid = (*worker)->pid();  // before the worker may move
    pool_->job_ended(static_cast<size_t>(attempt.device_index), pid,
                     again ? std::move(*worker) : nullptr);
  }
  // The slot first: once the attempt has ended, its device has room again.
  parts_.dispatcher.release(attempt.device_index, attempt.id, usage_to_learn(outcome, engines));
  parts_.running.ended(attempt);
}

// Supervises the worker to its end, sampling it; `engines`: the sampler's average.
WorkerOutcome AttemptRunner::supervise_worker(WorkerProcess& worker, Attempt& attempt, bool warm,
                                              metrics::EngineUsage& engines, AttemptLog& log) {
  std::unique_ptr<metrics::JobSampler> sampler = make_sampler(attempt, worker.pid(), warm);
  auto interval = std::chrono::duration<double>(parts_.options.sample_interval_s);
  auto next_sample = Clock::now() + interval;
  auto tick = [&] {
    if (Clock::now() < next_sample) return;
    next_sample += std::chrono::duration_cast<Clock::duration>(interval);
    if (next_sample < Clock::now()) next_sample = Clock::now() + interval;
    sampler->sample(monotonic_s());
    on_sample(attempt, *sampler);
  };
  auto on_tick = [&] {
    tick();
    log.flush();
  };
  Pace pace;
  WorkerOutcome outcome = supervise(
      worker, parts_.options.supervise, attempt.stop,
      [&](const Progress& p) { on_progress(attempt, p, pace); }, on_tick,
      [&] { return may_publish(attempt); }, [&](const JobLogLine& line) { log.add(line); });
  // Without this last reading a job shorter than one interval would be metered as nothing.
  sampler->finish(monotonic_s(), worker.cpu_seconds_at_exit());
  engines = sampler->average();
  return outcome;
}

// fdinfo for every job (an "auto" job on the software device may still open a GPU); NVML too
// for cuda jobs, whose NVIDIA driver has no DRM usage stats.
std::unique_ptr<metrics::JobSampler> AttemptRunner::make_sampler(const Attempt& attempt, int pid,
                                                                 bool warm) const {
  metrics::SamplerOptions options;
  options.proc_root = parts_.options.proc_root;
  options.worker_predates_job = warm;
  if (attempt.backend == BackendKind::kSoftware) options.no_gpu_note = " (a software job)";
  if (attempt.backend == BackendKind::kCuda && attempt.cuda_ordinal) {
    options.nvml = true;
    options.nvml_device = *attempt.cuda_ordinal;
    options.nvml_library = metrics::Nvml::shared(options.nvml_reason);
  }
  return std::make_unique<metrics::JobSampler>(std::move(options), pid, monotonic_s());
}

void AttemptRunner::on_sample(Attempt& attempt, const metrics::JobSampler& sampler) {
  metrics::EngineUsage live = sampler.live();
  attempt.set_engines(live);
  attempt.set_usage_so_far(measured_usage(sampler.average()));
  parts_.dispatcher.sample(attempt.id, live);
  parts_.counters.count_busy(attempt.device_name, live);
}

void AttemptRunner::on_progress(Attempt& attempt, const Progress& progress, Pace& pace) {
  attempt.set_progress(progress);
  // Workers report every half second; watchers get about one update a second.
  if (Clock::now() - pace.last_published < std::chrono::milliseconds(950)) return;
  pace.last_published = Clock::now();
  JobRecord job = attempt.record();
  parts_.hub.publish(EventKind::kProgress, job);
  store_progress(attempt, job, pace);
}

// Progress and the use so far are written about once a second: watchers on other nodes read
// progress from a shared store, and every claim's fair share reads the use (lease_sql.h). A
// write the row refuses means the job was taken over: this attempt stops.
void AttemptRunner::store_progress(Attempt& attempt, const JobRecord& job, Pace& pace) {
  if (attempt.done) return;
  if (Clock::now() - pace.last_stored < std::chrono::milliseconds(950)) return;
  pace.last_stored = Clock::now();
  Result<bool> written = parts_.jobs.write(job, attempt.row, nullptr);
  if (written.is_ok() && !*written)
    parts_.running.stop(attempt.id, kStopLost, "taken over by another node: stopping");
}

// Asked until the store answers, however long it is away: the lease running out meanwhile
// costs the attempt nothing while its row is still its own (no other node took the job over),
// so an outage longer than the lease does not fail the jobs that finished during it. Only a
// shutdown's end (its grace over: kStopShutdown) stops the asking; the job then runs again.
// A cancel accepted before the gate wins: the job is stopped as cancelled, nothing published.
// A row another attempt holds (or that was re-queued for one) refuses: that attempt's outcome
// stands, this one writes nothing (kStopLost).
Status AttemptRunner::may_publish(Attempt& attempt) {
  const ManagerOptions& options = parts_.options;
  bool warned = false;
  while (true) {
    Result<Fence> fence = parts_.leases.hold_lease(attempt.id, attempt.number, options.node_id,
                                                   lease_ms(options.lease_s));
    if (fence.is_ok()) return fence_answer(attempt, *fence);
    if (attempt.stop.load() == kStopShutdown)
      return {Code::kInternal,
              "the daemon stopped while the job store could not be reached: "
              "its outputs are not published (the job runs again)",
              true};
    if (!warned)
      spdlog::warn("job {}: its outputs wait for the job store ({})", attempt.id,
                   fence.status().message());
    warned = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

Status AttemptRunner::fence_answer(Attempt& attempt, Fence fence) {
  if (fence == Fence::kPublish) return {};
  if (fence == Fence::kCancelled) {
    attempt.stop.store(kStopCancel);  // however the worker ends now, the job is CANCELLED
    return {Code::kCancelled, "cancelled by request: its outputs are not published"};
  }
  attempt.stop.store(kStopLost);  // whatever else it was asked: it writes nothing now
  return {Code::kInternal, "attempt " + std::to_string(attempt.number) +
                               " no longer holds the job (another attempt took it over): its "
                               "outputs are not published"};
}

// The job's record once its worker ended. Its partial outputs are removed on failure. An
// attempt whose worker ran is metered whatever its outcome (the GPU and CPU were used), except
// one that this daemon's shutdown cut off: that is not the tenant's doing, and it gives its
// number back, so the run that replaces it is the one metered under that number.
JobRecord AttemptRunner::finished_record(const Attempt& attempt, const WorkerOutcome& outcome,
                                         const metrics::EngineUsage& engines, bool ran) {
  int stop = attempt.stop.load();
  bool interrupted = stop == kStopShutdown && !outcome.status.is_ok();
  JobRecord job = attempt.record();
  if (!outcome.status.is_ok())
    remove_partial_outputs(job.spec, job.attempt, parts_.options.policy.roots);
  if (interrupted) {
    // Not the job's fault: the next start runs it again without using up an attempt.
    requeue(job, AttemptUse::kGivenBack, {AttemptOutcome::kInterrupted, outcome.status, now_ms()});
    spdlog::info("job {}: stopped by shutdown, left queued", job.id);
  } else if (stop != kStopCancel &&
             should_retry(parts_.options.retry(), outcome.status, job.attempt)) {
    int64_t delay_ms = retry_delay_ms(parts_.options.retry(), job.attempt);
    requeue(job, AttemptUse::kSpent, {attempt_outcome(outcome), outcome.status, now_ms()},
            delay_ms);
    spdlog::warn("job {}: attempt {} failed ({}): runs again in {} s", job.id, job.attempt,
                 escape_text(outcome.status.to_string()), delay_ms / 1000.0);
  } else if (outcome.status.is_ok()) {
    finish(job, JobState::kSucceeded, {}, attach_engine_usage(outcome.report, engines), now_ms());
    spdlog::info("job {}: succeeded", job.id);
  } else if (stop == kStopCancel) {
    finish(job, JobState::kCancelled, Status(Code::kCancelled, "cancelled by request"),
           std::nullopt, now_ms());
    spdlog::info("job {}: cancelled", job.id);
  } else {
    finish(job, JobState::kFailed, outcome.status, std::nullopt, now_ms(),
           attempt_outcome(outcome));
    spdlog::warn("job {}: failed: {}", job.id, escape_text(outcome.status.to_string()));
  }
  if (ran && !interrupted) meter_attempt(job, attempt.number, measured_usage(engines));
  return job;
}

// Written however long the store is away: a state change is never lost. Not written when
// another node took the job over (its attempt's row moved on): that node's outcome stands.
void AttemptRunner::store_final(Attempt& attempt, const JobRecord& job) {
  bool warned = false;
  while (true) {
    Result<bool> written = save_job(parts_.jobs, parts_.options.webhook_body, job, attempt.row);
    if (written.is_ok() && !*written)
      return spdlog::warn(
          "job {}: attempt {} was taken over by another node: its end ({}) is not recorded", job.id,
          job.attempt, state_name(job.state));
    if (written.is_ok()) {
      attempt.set_record(job);
      if (is_terminal(job.state)) parts_.counters.count_finished(job);
      for (const AttemptRecord& ended : job.attempts)
        if (ended.number == attempt.number) parts_.counters.count_usage(job.tenant, ended.usage);
      parts_.hub.publish(EventKind::kState, job);
      return;
    }
    // A daemon shutting down cannot wait for the store: the lease runs out, another node
    // (or this one, restarted) runs the job again.
    if (!parts_.dispatcher.accepting())
      return spdlog::error("job {}: its end is lost ({}): it will run again", job.id,
                           written.status().message());
    if (!warned)
      spdlog::warn("job {}: its end is not stored yet ({}): trying until the store is back", job.id,
                   written.status().message());
    warned = true;
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

}  // namespace tc::daemon
