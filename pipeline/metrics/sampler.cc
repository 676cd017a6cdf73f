#include "pipeline/metrics/sampler.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <sstream>

#include "pipeline/core/file.h"

namespace tc::metrics {
namespace {

std::string link_target(const std::string& path) {
  char target[512];
  ssize_t n = ::readlink(path.c_str(), target, sizeof target - 1);
  return n > 0 ? std::string(target, static_cast<size_t>(n)) : std::string();
}

// The kernel's own check is the driver; a /dev/dri link or the drm-driver key both say DRM.
bool is_drm_fd(const std::string& target, const std::string& fdinfo) {
  return target.rfind("/dev/dri/", 0) == 0 || fdinfo.find("drm-driver:") != std::string::npos;
}

// After a counter went backwards (a driver reset its client), the previous value stands.
uint64_t advance(uint64_t& previous, uint64_t now) {
  if (now < previous) return 0;
  uint64_t delta = now - previous;
  previous = now;
  return delta;
}

}  // namespace

std::optional<double> parse_stat_cpu_seconds(const std::string& text) {
  // The command name (field 2) may hold spaces and parentheses: fields count from the last ')'.
  size_t paren = text.rfind(')');
  if (paren == std::string::npos) return std::nullopt;
  std::istringstream fields(text.substr(paren + 1));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int index = 3; fields >> field; ++index) {
    if (index == 14) utime = std::strtoull(field.c_str(), nullptr, 10);
    if (index == 15) {
      stime = std::strtoull(field.c_str(), nullptr, 10);
      long ticks = ::sysconf(_SC_CLK_TCK);
      return static_cast<double>(utime + stime) / static_cast<double>(ticks > 0 ? ticks : 100);
    }
  }
  return std::nullopt;
}

ProcRead read_proc(const std::string& proc_root, int pid) {
  ProcRead read;
  std::string base = proc_root + "/" + std::to_string(pid);
  std::string fdinfo_dir = base + "/fdinfo";
  DIR* dir = ::opendir(fdinfo_dir.c_str());
  if (!dir) {
    read.error = "cannot read " + fdinfo_dir + ": " + std::strerror(errno);
  } else {
    std::set<std::string> keys;
    while (dirent* entry = ::readdir(dir)) {
      std::string name = entry->d_name;
      if (name.empty() || name[0] == '.') continue;
      Result<std::string> text = read_file(fdinfo_dir + "/" + name);
      if (!text.is_ok()) {
        // A closed fd vanishes between readdir and open: only other errors are worth saying.
        if (errno != ENOENT) read.error = text.status().message();
        continue;
      }
      std::string target = link_target(base + "/fd/" + name);
      if (!is_drm_fd(target, *text)) continue;
      read.drm_fds += 1;
      std::optional<DrmClient> client = parse_fdinfo(*text);
      if (client && keys.insert(client->key()).second) read.clients.push_back(std::move(*client));
    }
    ::closedir(dir);
    // readdir order is the directory's: sort so that "the first client" is stable.
    std::sort(read.clients.begin(), read.clients.end(),
              [](const DrmClient& a, const DrmClient& b) { return a.key() < b.key(); });
  }
  // An unreadable stat (the worker already gone) is no CPU figure, as a text without fields.
  Result<std::string> stat = read_file(base + "/stat");
  read.cpu_s = stat.is_ok() ? parse_stat_cpu_seconds(*stat) : std::nullopt;
  return read;
}

JobSampler::JobSampler(SamplerOptions options, int pid, double start_s)
    : options_(std::move(options)), pid_(pid), start_s_(start_s), last_s_(start_s) {
  live_.unavailable_reason = reason(true);
  if (options_.worker_predates_job) count_from_now();
}

// The job's figures start from what the worker's counters hold now: a baseline, credited to
// no interval.
void JobSampler::count_from_now() {
  ProcRead now = read_proc(options_.proc_root, pid_);
  cpu_at_start_ = now.cpu_s.value_or(0);
  last_cpu_s_ = cpu_at_start_;
  for (const DrmClient& client : now.clients)
    for (const auto& [name, counter] : client.engines) previous_[client.key()][name].last = counter;
}

void JobSampler::add_drm(const ProcRead& read, double interval_s, Classes& interval,
                         Classes& earlier) {
  int64_t memory_total = 0, memory_resident = 0;
  bool with_stats = false;
  for (const DrmClient& client : read.clients) {
    memory_total += static_cast<int64_t>(client.memory_total);
    memory_resident += static_cast<int64_t>(client.memory_resident);
    if (client.engines.empty()) continue;
    with_stats = true;
    if (driver_.empty()) driver_ = client.driver;
    std::map<std::string, Seen>& seen = previous_[client.key()];
    for (const auto& [name, counter] : client.engines) {
      auto [entry, new_class] = seen.try_emplace(name);
      Seen& p = entry->second;
      // xe: total-cycles is a free-running GPU clock, so a client's first read is a baseline;
      // the cycles it already had are credited once the clock's rate is known.
      if (counter.cycles && new_class) {
        p.last = counter;
        p.pending_cycles = counter.busy;
        baseline_only_ = true;
        continue;
      }
      ClassBusy& busy = interval[name];
      busy.capacity = std::max(busy.capacity, counter.capacity);
      if (counter.cycles) {
        uint64_t busy_cycles = advance(p.last.busy, counter.busy);
        uint64_t total_cycles = advance(p.last.total_cycles, counter.total_cycles);
        if (total_cycles == 0) continue;
        double seconds_per_cycle = interval_s / static_cast<double>(total_cycles);
        busy.busy_s += static_cast<double>(busy_cycles) * seconds_per_cycle;
        ClassBusy& before = earlier[name];
        before.busy_s += static_cast<double>(p.pending_cycles) * seconds_per_cycle;
        before.capacity = std::max(before.capacity, counter.capacity);
        p.pending_cycles = 0;
      } else {
        // i915: busy ns since the fd was opened, and it was opened after the worker started.
        busy.busy_s += static_cast<double>(advance(p.last.busy, counter.busy)) / 1e9;
      }
    }
  }
  drm_fds_without_stats_ = with_stats ? 0 : read.drm_fds;
  if (with_stats) drm_seen_ = true;
  memory_total_peak_ = std::max(memory_total_peak_, memory_total);
  memory_resident_peak_ = std::max(memory_resident_peak_, memory_resident);
}

void JobSampler::add_nvml(double interval_s, Classes& interval) {
  if (!options_.nvml || !options_.nvml_library) return;
  std::string why;
  std::optional<NvmlProcessUse> use =
      options_.nvml_library->process_use(options_.nvml_device, pid_, nvml_since_us_, why);
  if (!use) {
    last_error_ = why;
    return;
  }
  nvml_since_us_ = use->last_timestamp_us;
  if (use->samples == 0) return;
  nvml_seen_ = true;
  if (driver_.empty()) driver_ = "nvidia";
  interval["nvdec"].busy_s += use->decoder_percent / 100 * interval_s;
  interval["nvenc"].busy_s += use->encoder_percent / 100 * interval_s;
}

void JobSampler::sample(double now_s) {
  double interval_s = now_s - last_s_;
  if (interval_s <= 0) return;
  ProcRead read = read_proc(options_.proc_root, pid_);
  last_error_ = read.error;
  Classes interval, earlier;
  baseline_only_ = false;
  add_drm(read, interval_s, interval, earlier);
  add_nvml(interval_s, interval);
  // Counter granularity can put a little more in an interval than fits: cap at 100 %.
  for (auto& [name, busy] : interval) {
    busy.busy_s = std::min(busy.busy_s, interval_s * busy.capacity);
    ClassBusy& total = total_[name];
    total.busy_s += busy.busy_s;
    total.capacity = std::max(total.capacity, busy.capacity);
  }
  for (auto& [name, busy] : earlier) {
    ClassBusy& total = total_[name];
    total.busy_s += busy.busy_s;
    total.capacity = std::max(total.capacity, busy.capacity);
  }
  samples_ += 1;
  last_s_ = now_s;
  bool available = !interval.empty();
  live_ = usage_of(interval, interval_s);
  live_.available = available;
  live_.unavailable_reason = available ? "" : reason(true);
  live_.samples = 1;
  if (read.cpu_s) {
    double previous = last_cpu_s_.value_or(0);
    live_.cpu_cores = std::max(0.0, *read.cpu_s - previous) / interval_s;
    last_cpu_s_ = std::max(previous, *read.cpu_s);
  }
  if (!available) live_.engines.clear();
}

void JobSampler::finish(double now_s, std::optional<double> cpu_at_exit_s) {
  if (!cpu_at_exit_s) return sample(now_s);
  last_s_ = std::max(last_s_, now_s);
  last_cpu_s_ = std::max(last_cpu_s_.value_or(0), *cpu_at_exit_s);
}

EngineUsage JobSampler::usage_of(const Classes& classes, double interval_s) const {
  EngineUsage usage;
  usage.source = drm_seen_ ? "drm-fdinfo" : nvml_seen_ ? "nvml" : "";
  usage.driver = driver_;
  usage.interval_s = interval_s;
  usage.memory_total_peak_bytes = memory_total_peak_;
  usage.memory_resident_peak_bytes = memory_resident_peak_;
  for (const auto& [name, busy] : classes) {
    double percent = interval_s > 0 ? 100 * busy.busy_s / (interval_s * busy.capacity) : 0;
    std::string label = name == "nvdec"   ? "video decode (NVDEC)"
                        : name == "nvenc" ? "video encode (NVENC)"
                                          : engine_class_label(name);
    usage.engines.push_back({name, label, std::min(percent, 100.0), busy.capacity});
  }
  return usage;
}

EngineUsage JobSampler::average() const {
  double wall_s = last_s_ - start_s_;
  EngineUsage usage = usage_of(total_, wall_s);
  usage.available = drm_seen_ || nvml_seen_;
  usage.samples = samples_;
  if (!usage.available) {
    usage.unavailable_reason = reason(false);
    usage.engines.clear();
  }
  if (last_cpu_s_ && wall_s > 0) usage.cpu_cores = (*last_cpu_s_ - cpu_at_start_) / wall_s;
  return usage;
}

// Why there are no engine figures: the most specific thing known, never a bare 0 %.
std::string JobSampler::reason(bool live) const {
  const std::string pid = std::to_string(pid_);
  if (options_.nvml && !options_.nvml_library)
    return options_.nvml_reason.empty() ? "not available: NVML not loaded" : options_.nvml_reason;
  if (!last_error_.empty() && (live || !drm_seen_))
    return last_error_.rfind("not available", 0) == 0 ? last_error_
                                                      : "not available: " + last_error_;
  if (live && baseline_only_)
    return "not available: first read of the GPU counters (a baseline for the next interval)";
  if (samples_ == 0)
    return live ? "not available: not sampled yet"
                : "not available: the job ended before its first sample";
  if (drm_fds_without_stats_ > 0)
    return "not available: the DRM file descriptors of worker " + pid +
           " carry no engine counters (a kernel without drm-usage-stats for this driver)";
  if (options_.nvml) return "not available: NVML reported no samples for worker " + pid;
  return "not available: worker " + pid + " has no DRM file descriptor" + options_.no_gpu_note;
}

}  // namespace tc::metrics
