#include "service/daemon/worker/worker_pool.h"

#include <spdlog/spdlog.h>
#include <sys/wait.h>

#include <algorithm>
#include <optional>

#include "service/daemon/worker/worker_protocol.h"

namespace tc::daemon {
namespace {

constexpr double kMaxBackoffS = 300;
constexpr double kTendIntervalS = 0.1;

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// How a worker that closed its stdout ended, for the log.
std::string describe_end(WorkerProcess& worker) {
  int status = worker.wait();
  if (WIFSIGNALED(status)) return "killed by " + describe_signal(WTERMSIG(status));
  return "exited with code " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

}  // namespace

WorkerPool::WorkerPool(const WorkerLaunch& launch, const std::vector<SchedDevice>& devices,
                       WarmOptions options)
    : options_(options), executable_(launch.executable) {
  if (options_.per_device <= 0 && !options_.zygote) return;
  for (const SchedDevice& device : devices) {
    if (options_.per_device <= 0) break;
    DevicePool pool;
    pool.name = device.name;
    pool.launch = launch;
    pool.launch.open_backend = device.backend;
    pool.launch.open_path = device.path;
    pool.launch.jobs = options_.jobs_per_worker;
    pool.last_used = Clock::now();
    pools_.push_back(std::move(pool));
  }
  thread_ = std::thread([this] { loop(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  // The workers still waiting are killed and reaped with pools_.
}

void WorkerPool::loop() {
  auto interval = std::chrono::duration<double>(kTendIntervalS);
  for (;;) {
    tend();
    std::unique_lock lock(mutex_);
    wake_.wait_for(lock, interval, [this] { return taken_ || stopping_; });
    if (stopping_) return;
    taken_ = false;
  }
}

std::unique_ptr<WorkerProcess> WorkerPool::take(size_t device) {
  std::optional<Waiting> starting;
  {
    std::lock_guard lock(mutex_);
    if (device >= pools_.size()) return nullptr;
    DevicePool& pool = pools_[device];
    pool.last_used = Clock::now();
    pool.stopped_idle = false;
    taken_ = true;  // the pool's thread starts the replacement
    wake_.notify_all();
    for (Waiting& w : pool.workers) {
      if (!w.ready) continue;
      check(pool, w);  // one that died while it waited is dropped here, not handed out
      if (w.process) {
        hold_place(pool, w);
        std::unique_ptr<WorkerProcess> taken = std::move(w.process);
        std::erase_if(pool.workers, [](const Waiting& x) { return !x.process; });
        return taken;
      }
    }
    for (Waiting& w : pool.workers)
      if (w.process && !starting) {
        hold_place(pool, w);
        starting = std::move(w);
      }
    std::erase_if(pool.workers, [](const Waiting& x) { return !x.process; });
  }
  return starting ? wait_ready(device, std::move(*starting)) : nullptr;
}

void WorkerPool::job_ended(size_t device, pid_t pid, std::unique_ptr<WorkerProcess> worker) {
  std::lock_guard lock(mutex_);
  if (device >= pools_.size()) return;
  DevicePool& pool = pools_[device];
  auto out = pool.out.find(pid);
  if (out == pool.out.end()) return;  // it had no job left: it exits, a replacement is up
  int jobs_left = out->second;
  pool.out.erase(out);
  if (worker && !stopping_ && !pool.stopped_idle)
    pool.workers.push_back({std::move(worker), Clock::now(), true, jobs_left});
  taken_ = true;  // a place came free, or a worker came back: the pool's thread looks
  wake_.notify_all();
}

void WorkerPool::hold_place(DevicePool& pool, const Waiting& w) {
  if (w.jobs_left > 1) pool.out[w.process->pid()] = w.jobs_left - 1;
}

std::vector<WorkerPool::Counts> WorkerPool::counts() {
  std::lock_guard lock(mutex_);
  std::vector<Counts> counts;
  for (const DevicePool& pool : pools_) {
    auto ready = std::count_if(pool.workers.begin(), pool.workers.end(),
                               [](const Waiting& w) { return w.ready; });
    counts.push_back({static_cast<int>(ready), pool.lost, pool.failed_setup});
  }
  return counts;
}

void WorkerPool::Backoff::failed() {
  next_try = Clock::now() +
             std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(wait_s));
  wait_s = std::min(wait_s * 2, kMaxBackoffS);
}

void WorkerPool::keep_zygote() {
  if (!options_.zygote || zygote_retry_.waiting()) return;
  if (std::lock_guard lock(zygote_mutex_); zygote_refused_) return;
  if (std::shared_ptr<Zygote> running = zygote(); running && !running->broken()) return;
  Result<std::unique_ptr<Zygote>> started = Zygote::start(executable_);
  std::lock_guard lock(zygote_mutex_);
  if (zygote_) spdlog::warn("zygote {} ended: another started", zygote_->pid());
  zygote_.reset();
  if (started.is_ok()) {
    zygote_ = std::move(*started);
    spdlog::info("zygote {} started: workers are forked from it", zygote_->pid());
    zygote_retry_.succeeded();
    return;
  }
  spdlog::warn("zygote did not start ({}): workers are executed; next try in {} s",
               started.status().message(), zygote_retry_.wait_s);
  zygote_retry_.failed();
}

std::shared_ptr<Zygote> WorkerPool::zygote() {
  std::lock_guard lock(zygote_mutex_);
  return zygote_;
}

Result<std::unique_ptr<WorkerProcess>> WorkerPool::start_worker(const WorkerLaunch& launch) {
  if (std::shared_ptr<Zygote> forks = zygote()) {
    Result<std::unique_ptr<WorkerProcess>> forked = forks->fork_worker(launch);
    if (forked.is_ok()) return forked;
    if (forked.status().code() == Code::kUnsupported) {
      spdlog::warn("{}: every worker is executed from now on", forked.status().message());
      std::lock_guard lock(zygote_mutex_);
      zygote_refused_ = true;
      zygote_.reset();
    } else {
      spdlog::warn("{}: this worker is executed", forked.status().message());
    }
  }
  return WorkerProcess::spawn(launch);
}

void WorkerPool::tend() {
  keep_zygote();
  std::lock_guard lock(mutex_);
  for (DevicePool& pool : pools_) {
    for (Waiting& w : pool.workers) check(pool, w);
    std::erase_if(pool.workers, [](const Waiting& w) { return !w.process; });
    if (!pool.stopped_idle && seconds_since(pool.last_used) > options_.idle_s) {
      if (!pool.workers.empty())
        spdlog::info("warm workers of {}: unused for {} s, stopped until its next job", pool.name,
                     options_.idle_s);
      pool.workers.clear();
      pool.stopped_idle = true;
    }
    top_up(pool);
  }
}

// What a worker said within `timeout_s`: nothing yet (nullopt), "ready" (empty string), or why
// it cannot serve: an error (its device did not open), any other line, or its end.
std::optional<std::string> WorkerPool::listen(WorkerProcess& worker, double timeout_s) {
  std::string line;
  WorkerProcess::Read read = worker.read_line(line, timeout_s);
  if (read == WorkerProcess::Read::kTimeout) return std::nullopt;
  if (read == WorkerProcess::Read::kEnd) return describe_end(worker);
  Result<WorkerMessage> said = parse_worker_line(line);
  if (said.is_ok() && said->kind == WorkerMessage::Kind::kReady) return std::string();
  if (said.is_ok() && said->kind == WorkerMessage::Kind::kError) return said->error.message();
  return "it said: " + line;
}

// What a waiting worker said since the last look. Only {"ready": {}}, once, keeps it: anything
// else drops it, so no job lands there.
void WorkerPool::check(DevicePool& pool, Waiting& w) {
  std::optional<std::string> said = listen(*w.process, 0);
  if (!said) {
    if (!w.ready && seconds_since(w.started) > options_.ready_timeout_s) {
      lost_setup(pool, "not ready after " + std::to_string(options_.ready_timeout_s) + " s");
      w.process.reset();
    }
    return;
  }
  if (said->empty() && !w.ready) {
    w.ready = true;
    pool.retry.succeeded();
    return;
  }
  if (w.ready) {
    spdlog::warn("warm worker {} of {} ended while it waited ({}): replaced", w.process->pid(),
                 pool.name, said->empty() ? "it said ready twice" : *said);
    pool.lost += 1;
  } else {
    lost_setup(pool, *said);
  }
  w.process.reset();
}

// A worker being set up, taken for a job because none was ready: it is nearer to running the
// job than a process started now. Waited for on the job's thread; one that fails to set up
// is dropped as the pool would drop it, and the caller starts a worker cold.
std::unique_ptr<WorkerProcess> WorkerPool::wait_ready(size_t device, Waiting w) {
  double left = options_.ready_timeout_s - seconds_since(w.started);
  std::optional<std::string> said = listen(*w.process, std::max(left, 0.0));
  if (said && said->empty()) return std::move(w.process);
  std::lock_guard lock(mutex_);
  pools_[device].out.erase(w.process->pid());
  lost_setup(pools_[device],
             said ? *said : "not ready after " + std::to_string(options_.ready_timeout_s) + " s");
  return nullptr;
}

void WorkerPool::top_up(DevicePool& pool) {
  if (pool.stopped_idle || pool.retry.waiting()) return;
  while (static_cast<int>(pool.workers.size() + pool.out.size()) < options_.per_device) {
    Result<std::unique_ptr<WorkerProcess>> started = start_worker(pool.launch);
    if (!started.is_ok()) {
      failed_start(pool, started.status().message());
      return;
    }
    pool.workers.push_back({std::move(*started), Clock::now(), false, options_.jobs_per_worker});
  }
}

void WorkerPool::lost_setup(DevicePool& pool, const std::string& why) {
  pool.failed_setup += 1;
  failed_start(pool, why);
}

// A worker that could not set up is never handed a job; its device is tried again later
// (Backoff).
void WorkerPool::failed_start(DevicePool& pool, const std::string& why) {
  spdlog::warn(
      "warm worker of {} did not start: {}; its jobs start workers cold; next try in "
      "{} s",
      pool.name, why, pool.retry.wait_s);
  pool.retry.failed();
}

}  // namespace tc::daemon
