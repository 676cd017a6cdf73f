#include "service/daemon/metrics/metrics_endpoint.h"

#include <prometheus/collectable.h>
#include <prometheus/exposer.h>
#include <prometheus/metric_family.h>
#include <prometheus/text_serializer.h>

#include <limits>
#include <sstream>

extern "C" {
#include <libavutil/avutil.h>
}

#include "service/daemon/metrics/process_metrics.h"

namespace tc::daemon {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;
using Labels = std::vector<ClientMetric::Label>;

MetricFamily family(const char* name, const char* help, MetricType type) {
  MetricFamily f;
  f.name = name;
  f.help = help;
  f.type = type;
  return f;
}

void add(MetricFamily& f, Labels labels, double value) {
  ClientMetric metric;
  metric.label = std::move(labels);
  if (f.type == MetricType::Counter)
    metric.counter.value = value;
  else
    metric.gauge.value = value;
  f.metric.push_back(std::move(metric));
}

template <typename Histogram>
ClientMetric histogram_metric(Labels labels, const Histogram& h) {
  ClientMetric metric;
  metric.label = std::move(labels);
  metric.histogram.sample_count = h.count;
  metric.histogram.sample_sum = h.sum;
  uint64_t cumulative = 0;
  for (size_t i = 0; i < h.counts.size(); ++i) {
    cumulative += h.counts[i];
    double bound = i < Histogram::bounds().size() ? Histogram::bounds()[i]
                                                  : std::numeric_limits<double>::infinity();
    metric.histogram.bucket.push_back({cumulative, bound});
  }
  return metric;
}

// The standard process_* families (see process_metrics.h); none when /proc is unreadable.
std::vector<MetricFamily> process_families() {
  std::optional<ProcessStats> stats = read_process_stats();
  if (!stats) return {};
  auto one = [](const char* name, const char* help, MetricType type, double value) {
    MetricFamily f = family(name, help, type);
    add(f, {}, value);
    return f;
  };
  return {
      one("process_cpu_seconds_total", "User and system CPU time spent in seconds",
          MetricType::Counter, stats->cpu_seconds),
      one("process_resident_memory_bytes", "Resident memory size in bytes", MetricType::Gauge,
          stats->resident_bytes),
      one("process_virtual_memory_bytes", "Virtual memory size in bytes", MetricType::Gauge,
          stats->virtual_bytes),
      one("process_open_fds", "Number of open file descriptors", MetricType::Gauge,
          stats->open_fds),
      one("process_max_fds", "Maximum number of open file descriptors", MetricType::Gauge,
          stats->max_fds),
      one("process_start_time_seconds", "Start time of the process since unix epoch in seconds",
          MetricType::Gauge, stats->start_time_seconds),
  };
}

class SnapshotCollectable : public prometheus::Collectable {
 public:
  explicit SnapshotCollectable(std::function<NodeSnapshot()> snapshot)
      : snapshot_(std::move(snapshot)) {}
  std::vector<MetricFamily> Collect() const override {
    std::vector<MetricFamily> families = node_families(snapshot_());
    for (MetricFamily& f : process_families()) families.push_back(std::move(f));
    return families;
  }

 private:
  std::function<NodeSnapshot()> snapshot_;
};

// --quality figures of succeeded jobs' outputs, by backend.
// Absent when the daemon sends no webhooks.
std::vector<MetricFamily> webhook_families(const NodeSnapshot& s) {
  if (!s.webhooks) return {};
  MetricFamily backlog =
      family("transcoded_webhook_backlog", "Webhook notices neither delivered nor given up",
             MetricType::Gauge);
  add(backlog, {}, static_cast<double>(s.webhooks->backlog));
  MetricFamily oldest =
      family("transcoded_webhook_oldest_undelivered_age_seconds",
             "Age of the oldest undelivered webhook notice; 0 when none", MetricType::Gauge);
  add(oldest, {}, s.webhooks->oldest_age_s);
  return {backlog, oldest};
}

std::vector<MetricFamily> quality_families(const NodeSnapshot& s) {
  MetricFamily psnr = family("transcoded_output_psnr_db",
                             "PSNR (all planes) of outputs measured with --quality, by backend",
                             MetricType::Histogram);
  for (const auto& [backend, histogram] : s.output_psnr)
    psnr.metric.push_back(histogram_metric({{"backend", backend}}, histogram));
  MetricFamily ssim = family("transcoded_output_ssim",
                             "SSIM (all planes) of outputs measured with --quality, by backend",
                             MetricType::Histogram);
  for (const auto& [backend, histogram] : s.output_ssim)
    ssim.metric.push_back(histogram_metric({{"backend", backend}}, histogram));
  return {psnr, ssim};
}

// Measured use per tenant (docs/tenants.md, Usage): what this node's ended attempts used.
std::vector<MetricFamily> tenant_usage_families(const NodeSnapshot& s) {
  MetricFamily cpu = family("transcoded_tenant_cpu_seconds_total",
                            "CPU-seconds of the workers of a tenant's jobs that ended on this node",
                            MetricType::Counter);
  MetricFamily engine =
      family("transcoded_tenant_engine_seconds_total",
             "Busy engine-seconds of a tenant's jobs that ended on this node, per engine class",
             MetricType::Counter);
  for (const auto& [tenant, usage] : s.tenant_usage)
    for (const auto& [resource, seconds] : usage)
      if (resource == kCpuResource)
        add(cpu, {{"tenant", tenant}}, seconds);
      else
        add(engine, {{"tenant", tenant}, {"engine", resource}}, seconds);
  return {cpu, engine};
}

}  // namespace

std::vector<MetricFamily> node_families(const NodeSnapshot& s) {
  MetricFamily build =
      family("transcoded_build_info", "The daemon's version and the FFmpeg it runs on; always 1",
             MetricType::Gauge);
  add(build, {{"version", TC_VERSION}, {"ffmpeg", av_version_info()}}, 1);
  MetricFamily jobs = family("transcoded_jobs", "Jobs in the store, by state", MetricType::Gauge);
  for (const auto& [state, count] : s.jobs_by_state)
    add(jobs, {{"state", state}}, static_cast<double>(count));
  MetricFamily queue =
      family("transcoded_queue_depth", "Jobs waiting for a slot", MetricType::Gauge);
  add(queue, {}, static_cast<double>(s.queue_depth));
  MetricFamily store = family("transcoded_store_up",
                              "1 while the job store answers the node's beats (health SERVING), "
                              "else 0",
                              MetricType::Gauge);
  add(store, {}, s.store_up ? 1 : 0);

  MetricFamily running =
      family("transcoded_running_jobs", "Jobs running, per device", MetricType::Gauge);
  MetricFamily slots =
      family("transcoded_device_slots", "Jobs a device runs at once", MetricType::Gauge);
  MetricFamily busy = family("transcoded_device_engine_busy_ratio",
                             "Engine busy fraction (0..1) of a device over the last sampling "
                             "interval, summed over its running jobs (DRM fdinfo or NVML)",
                             MetricType::Gauge);
  MetricFamily busy_s =
      family("transcoded_engine_busy_seconds_total",
             "Busy engine-seconds of jobs, per device and engine class", MetricType::Counter);
  MetricFamily encoded = family("transcoded_frames_encoded_total",
                                "Video frames encoded by succeeded jobs", MetricType::Counter);
  MetricFamily decoded = family("transcoded_frames_decoded_total",
                                "Video frames decoded by succeeded jobs", MetricType::Counter);
  MetricFamily warm =
      family("transcoded_warm_workers", "Workers started and set up ahead of jobs, waiting for one",
             MetricType::Gauge);
  MetricFamily starts = family("transcoded_worker_starts_total",
                               "Jobs' workers: kind=warm taken from the pool, kind=cold started "
                               "for the job",
                               MetricType::Counter);
  MetricFamily warm_failures =
      family("transcoded_warm_worker_failures_total",
             "Warm workers that could not serve: kind=lost ended while they waited (replaced), "
             "kind=setup never got ready (their device did not open)",
             MetricType::Counter);
  for (const NodeSnapshot::Device& d : s.devices) {
    Labels device = {{"device", d.name}, {"backend", d.backend}};
    add(running, device, d.running);
    add(slots, device, d.slots);
    for (const auto& [engine, percent] : d.engine_busy_percent)
      add(busy, {{"device", d.name}, {"engine", engine}}, percent / 100);
    for (const auto& [engine, seconds] : d.totals.engine_busy_s)
      add(busy_s, {{"device", d.name}, {"engine", engine}}, seconds);
    add(encoded, device, static_cast<double>(d.totals.frames_encoded));
    add(decoded, device, static_cast<double>(d.totals.frames_decoded));
    add(warm, device, d.warm_ready);
    add(starts, {{"device", d.name}, {"kind", "warm"}}, static_cast<double>(d.totals.warm_starts));
    add(starts, {{"device", d.name}, {"kind", "cold"}}, static_cast<double>(d.totals.cold_starts));
    add(warm_failures, {{"device", d.name}, {"kind", "lost"}}, static_cast<double>(d.warm_lost));
    add(warm_failures, {{"device", d.name}, {"kind", "setup"}},
        static_cast<double>(d.warm_failed_setup));
  }

  MetricFamily job_busy =
      family("transcoded_job_engine_busy_ratio",
             "Engine busy fraction (0..1) of a running job over the last sampling interval",
             MetricType::Gauge);
  MetricFamily job_cpu =
      family("transcoded_job_cpu_cores",
             "CPU cores a running job's worker used over the last interval", MetricType::Gauge);
  // "job_id", not "job": Prometheus's scrape sets "job" and would rename ours "exported_job".
  for (const NodeSnapshot::RunningJob& job : s.running) {
    add(job_cpu, {{"job_id", job.id}, {"device", job.device}}, job.live.cpu_cores);
    if (!job.live.available) continue;
    for (const metrics::EngineBusy& e : job.live.engines)
      add(job_busy, {{"job_id", job.id}, {"device", job.device}, {"engine", e.engine}},
          e.busy_percent / 100);
  }

  MetricFamily duration =
      family("transcoded_job_duration_seconds", "Start to end of finished jobs, by final state",
             MetricType::Histogram);
  for (const auto& [state, histogram] : s.job_duration)
    duration.metric.push_back(histogram_metric({{"state", state}}, histogram));
  MetricFamily queue_wait =
      family("transcoded_job_queue_wait_seconds",
             "Create to start of jobs that ran, observed when they end", MetricType::Histogram);
  queue_wait.metric.push_back(histogram_metric({}, s.queue_wait));
  std::vector<MetricFamily> families{build,    jobs,    queue,    running,    slots,  busy,
                                     busy_s,   encoded, decoded,  warm,       starts, warm_failures,
                                     job_busy, job_cpu, duration, queue_wait, store};
  for (MetricFamily& f : quality_families(s)) families.push_back(std::move(f));
  for (MetricFamily& f : webhook_families(s)) families.push_back(std::move(f));
  for (MetricFamily& f : tenant_usage_families(s)) families.push_back(std::move(f));
  return families;
}

std::string node_metrics_text(const NodeSnapshot& snapshot) {
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, node_families(snapshot));
  return out.str();
}

Result<std::unique_ptr<MetricsEndpoint>> MetricsEndpoint::start(
    const std::string& listen, std::function<NodeSnapshot()> snapshot) {
  std::unique_ptr<MetricsEndpoint> endpoint(new MetricsEndpoint());
  try {
    // One thread: scrapes are rare, and each takes the JobManager's lock anyway.
    endpoint->exposer_ = std::make_unique<prometheus::Exposer>(listen, 1);
  } catch (const std::exception& e) {
    return Status(Code::kInvalidArgument,
                  "metrics_listen: cannot listen on " + listen + ": " + e.what());
  }
  endpoint->collectable_ = std::make_shared<SnapshotCollectable>(std::move(snapshot));
  endpoint->exposer_->RegisterCollectable(endpoint->collectable_);
  std::vector<int> ports = endpoint->exposer_->GetListeningPorts();
  std::string host = listen.substr(0, listen.rfind(':'));
  endpoint->address_ = ports.empty() ? listen : host + ":" + std::to_string(ports.front());
  return endpoint;
}

MetricsEndpoint::~MetricsEndpoint() {
  // The server stops before the collectable it calls goes away.
  exposer_.reset();
}

}  // namespace tc::daemon
