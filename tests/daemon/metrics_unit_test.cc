// The daemon's metrics pieces without a server: settings, the report's engine block, node
// totals and their Prometheus text.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstring>
#include <ctime>
#include <vector>

#include <nlohmann/json.hpp>

#include "service/daemon/config.h"
#include "service/daemon/jobs/job_manager.h"
#include "service/daemon/metrics/metrics_endpoint.h"
#include "service/daemon/metrics/process_metrics.h"
#include "service/daemon/model/node_metrics.h"
#include "tests/support/source_version.h"

using namespace tc;
using namespace tc::daemon;

namespace {

bool has_line(const std::string& text, const std::string& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

// When this binary was loaded (static initialisation), in seconds since the Unix epoch.
const time_t kLoadedAt = time(nullptr);

double cpu_seconds_by_rusage() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

}  // namespace

TEST(MetricsConfig, SettingsAndTheirChecks) {
  bool help = false;
  Result<DaemonConfig> c = load_config(
      {"--metrics-listen", "127.0.0.1:0", "--proc-root", "/fake/proc", "--sample-interval", "1"},
      help);
  ASSERT_TRUE(c.is_ok()) << c.status().message();
  EXPECT_EQ(c->metrics_listen, "127.0.0.1:0");
  EXPECT_EQ(c->proc_root, "/fake/proc");
  EXPECT_DOUBLE_EQ(c->sample_interval_s, 1);
  EXPECT_TRUE(validate_config(*c).is_ok());

  DaemonConfig defaults;
  EXPECT_TRUE(defaults.metrics_listen.empty());  // off unless asked for
  EXPECT_EQ(defaults.proc_root, "/proc");

  DaemonConfig bad;
  bad.metrics_listen = "unix:/tmp/m.sock";
  EXPECT_NE(validate_config(bad).message().find("metrics_listen"), std::string::npos);
  bad = {};
  bad.sample_interval_s = 0;
  EXPECT_NE(validate_config(bad).message().find("sample_interval"), std::string::npos);
}

TEST(MetricsReport, EnginesJoinTheReportWithCpuFromTheWorker) {
  metrics::EngineUsage usage;
  usage.unavailable_reason = "not available: worker 7 has no DRM file descriptor (a software job)";
  usage.cpu_cores = 9;  // the sampler's estimate; the worker's own figures win
  usage.samples = 3;
  JobReport report;
  report.input = "in.mp4";
  report.wall_s = 2.0;
  report.cpu_s = 3.0;
  JobReport joined = attach_engine_usage(report, usage);
  EXPECT_EQ(joined.input, "in.mp4");
  ASSERT_TRUE(joined.engines.has_value());
  // The API's report_json carries them under "engines".
  nlohmann::json json = joined;
  EXPECT_EQ(json["engines"]["available"], false);
  EXPECT_EQ(json["engines"]["unavailable_reason"], usage.unavailable_reason);
  EXPECT_DOUBLE_EQ(json["engines"]["cpu_cores"].get<double>(), 1.5);
  EXPECT_EQ(json["engines"]["samples"], 3);
  report.wall_s = 0;  // no figures of its own: the sampler's estimate stays
  EXPECT_DOUBLE_EQ(attach_engine_usage(report, usage).engines->cpu_cores, 9);
}

TEST(NodeMetrics, HistogramBuckets) {
  DurationHistogram h;
  h.observe(0.5);
  h.observe(7);
  h.observe(5000);
  EXPECT_EQ(h.count, 3u);
  EXPECT_DOUBLE_EQ(h.sum, 5007.5);
  EXPECT_EQ(h.counts[0], 1u);      // <= 1 s
  EXPECT_EQ(h.counts[2], 1u);      // <= 10 s
  EXPECT_EQ(h.counts.back(), 1u);  // +Inf
}

TEST(NodeMetrics, QualityHistogramsByBackend) {
  NodeSnapshot s;
  s.output_psnr["vaapi"].observe(29);
  s.output_psnr["vaapi"].observe(41.2);
  s.output_ssim["vaapi"].observe(0.985);
  std::string text = node_metrics_text(s);
  EXPECT_TRUE(has_line(text, "transcoded_output_psnr_db_bucket{backend=\"vaapi\",le=\"30\"} 1"))
      << text;
  EXPECT_TRUE(has_line(text, "transcoded_output_psnr_db_bucket{backend=\"vaapi\",le=\"42\"} 2"))
      << text;
  EXPECT_TRUE(has_line(text, "transcoded_output_psnr_db_count{backend=\"vaapi\"} 2")) << text;
  EXPECT_TRUE(has_line(text, "transcoded_output_ssim_bucket{backend=\"vaapi\",le=\"0.98\"} 0"))
      << text;
  EXPECT_TRUE(has_line(text, "transcoded_output_ssim_bucket{backend=\"vaapi\",le=\"0.99\"} 1"))
      << text;
  EXPECT_NE(text.find("# TYPE transcoded_output_ssim histogram"), std::string::npos);
}

TEST(NodeMetrics, PrometheusText) {
  NodeSnapshot s;
  s.jobs_by_state = {{"queued", 1}, {"running", 1}, {"succeeded", 2}};
  s.queue_depth = 1;
  NodeSnapshot::Device device;
  device.name = "vaapi /dev/dri/renderD128";
  device.backend = "vaapi";
  device.slots = 4;
  device.running = 1;
  device.engine_busy_percent = {{"video", 42.5}};
  device.totals.frames_encoded = 300;
  device.totals.frames_decoded = 150;
  device.totals.engine_busy_s = {{"video", 12.25}};
  s.devices.push_back(device);
  metrics::EngineUsage live;
  live.available = true;
  live.engines = {{"video", "video (decode+encode)", 42.5, 2}};
  live.cpu_cores = 0.25;
  s.running.push_back({"j-1", device.name, live});
  s.job_duration["succeeded"].observe(3);
  s.job_duration["succeeded"].observe(40);

  std::string text = node_metrics_text(s);
  const std::string d = "device=\"vaapi /dev/dri/renderD128\"";
  EXPECT_TRUE(has_line(text, "transcoded_jobs{state=\"succeeded\"} 2")) << text;
  EXPECT_TRUE(has_line(text, "transcoded_queue_depth 1")) << text;
  EXPECT_TRUE(has_line(text, "transcoded_running_jobs{" + d + ",backend=\"vaapi\"} 1")) << text;
  EXPECT_TRUE(
      has_line(text, "transcoded_device_engine_busy_ratio{" + d + ",engine=\"video\"} 0.425"))
      << text;
  EXPECT_TRUE(
      has_line(text, "transcoded_engine_busy_seconds_total{" + d + ",engine=\"video\"} 12.25"))
      << text;
  EXPECT_TRUE(has_line(text, "transcoded_frames_encoded_total{" + d + ",backend=\"vaapi\"} 300"))
      << text;
  EXPECT_TRUE(has_line(
      text, "transcoded_job_engine_busy_ratio{job_id=\"j-1\"," + d + ",engine=\"video\"} 0.425"))
      << text;
  EXPECT_TRUE(has_line(text, "transcoded_job_cpu_cores{job_id=\"j-1\"," + d + "} 0.25")) << text;
  EXPECT_TRUE(has_line(text, "transcoded_job_duration_seconds_count{state=\"succeeded\"} 2"))
      << text;
  EXPECT_TRUE(
      has_line(text, "transcoded_job_duration_seconds_bucket{state=\"succeeded\",le=\"5\"} 1"))
      << text;
  EXPECT_TRUE(
      has_line(text, "transcoded_job_duration_seconds_bucket{state=\"succeeded\",le=\"+Inf\"} 2"))
      << text;
  EXPECT_NE(text.find("# TYPE transcoded_job_duration_seconds histogram"), std::string::npos);
  // Which build answers, on every scrape: the repository's VERSION file's version (read here).
  EXPECT_NE(
      text.find("\ntranscoded_build_info{version=\"" + tc::test::source_version() + "\",ffmpeg=\""),
      std::string::npos)
      << text;
}

// Each figure against what the test itself did or another interface says, so that a wrong unit
// (pages, KiB, clock ticks, seconds since boot) fails: 64 MiB touched is 64 MiB more resident,
// 256 MiB reserved 256 MiB more virtual, 10 descriptors opened 10 more, the CPU time
// getrusage's, the start time this binary's load time.
TEST(ProcessMetrics, ReadsThisProcess) {
  constexpr double kMiB = 1024 * 1024;
  std::optional<ProcessStats> before = read_process_stats();
  ASSERT_TRUE(before.has_value());
  void* reserved = mmap(nullptr, 256 << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  void* touched =
      mmap(nullptr, 64 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(reserved, MAP_FAILED);
  ASSERT_NE(touched, MAP_FAILED);
  std::memset(touched, 1, 64 << 20);
  std::vector<int> fds;
  for (int k = 0; k < 10; ++k) fds.push_back(open("/dev/null", O_RDONLY | O_CLOEXEC));
  while (cpu_seconds_by_rusage() < 0.2) {  // some CPU time, so that its unit shows
  }
  double rusage_before = cpu_seconds_by_rusage();
  std::optional<ProcessStats> after = read_process_stats();
  double rusage_after = cpu_seconds_by_rusage();
  for (int fd : fds) close(fd);
  munmap(touched, 64 << 20);
  munmap(reserved, 256 << 20);
  ASSERT_TRUE(after.has_value());
  EXPECT_NEAR((after->resident_bytes - before->resident_bytes) / kMiB, 64, 4);
  EXPECT_NEAR((after->virtual_bytes - before->virtual_bytes) / kMiB, 256 + 64, 8);
  EXPECT_EQ(after->open_fds - before->open_fds, 10);
  rlimit files{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &files), 0);
  EXPECT_EQ(after->max_fds, double(files.rlim_cur));
  // /proc counts clock ticks (10 ms), getrusage microseconds.
  EXPECT_GE(after->cpu_seconds, rusage_before - 0.02);
  EXPECT_LE(after->cpu_seconds, rusage_after + 0.02);
  EXPECT_GE(after->start_time_seconds, double(kLoadedAt) - 2);
  EXPECT_LE(after->start_time_seconds, double(kLoadedAt) + 1);
}

TEST(ProcessMetrics, NoProcMeansNoStats) {
  EXPECT_FALSE(read_process_stats("/nonexistent").has_value());
}
