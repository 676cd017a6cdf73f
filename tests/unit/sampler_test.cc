// The sampler end to end against a fake /proc: a test writes fdinfo texts and advances their
// counters, drives the clock, and checks the busy % the job reports against the counters.
#include "pipeline/metrics/sampler.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace tc::metrics {
namespace {

namespace fs = std::filesystem;

constexpr int kPid = 4242;

// <root>/<pid>/fd/N (links) and <root>/<pid>/fdinfo/N (texts), as the kernel lays them out.
class FakeProc {
 public:
  FakeProc() {
    std::string pattern = (fs::temp_directory_path() / "tc-proc-XXXXXX").string();
    root_ = mkdtemp(pattern.data());
    fs::create_directories(pid_dir() + "/fd");
    fs::create_directories(pid_dir() + "/fdinfo");
  }
  ~FakeProc() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  const std::string& root() const { return root_; }
  std::string pid_dir() const { return root_ + "/" + std::to_string(kPid); }

  void set_fd(int fd, const std::string& target, const std::string& fdinfo) {
    std::string link = pid_dir() + "/fd/" + std::to_string(fd);
    std::error_code ec;
    fs::remove(link, ec);
    fs::create_symlink(target, link);
    std::ofstream(pid_dir() + "/fdinfo/" + std::to_string(fd)) << fdinfo;
  }
  void set_cpu_ticks(long utime, long stime) {
    std::ofstream(pid_dir() + "/stat")
        << kPid << " (transcoded (w)) S 1 1 1 0 -1 4194560 100 0 0 0 " << utime << " " << stime
        << " 0 0 20 0 4 0 100 1000 100\n";
  }

 private:
  std::string root_;
};

std::string i915(int client, uint64_t render_ns, uint64_t video_ns, int total_kib = 64) {
  return "pos: 0\nflags: 02100002\nmnt_id: 24\ndrm-driver: i915\ndrm-pdev: 0000:00:02.0\n"
         "drm-client-id: " +
         std::to_string(client) + "\n" + "drm-total-system0: " + std::to_string(total_kib) +
         " KiB\n" + "drm-resident-system0: " + std::to_string(total_kib / 2) + " KiB\n" +
         "drm-engine-render: " + std::to_string(render_ns) + " ns\n" + "drm-engine-copy: 0 ns\n" +
         "drm-engine-video: " + std::to_string(video_ns) + " ns\n" +
         "drm-engine-capacity-video: 2\n" + "drm-engine-video-enhance: 0 ns\n";
}

std::string xe(int client, uint64_t rcs, uint64_t vcs, uint64_t total) {
  std::string t = std::to_string(total);
  return "drm-driver: xe\ndrm-pdev: 0000:03:00.0\ndrm-client-id: " + std::to_string(client) +
         "\ndrm-total-vram0: 1 MiB\ndrm-resident-vram0: 1 MiB\n"
         "drm-cycles-rcs: " +
         std::to_string(rcs) + "\ndrm-total-cycles-rcs: " + t +
         "\ndrm-cycles-vcs: " + std::to_string(vcs) + "\ndrm-total-cycles-vcs: " + t +
         "\ndrm-engine-capacity-vcs: 2\n";
}

double busy(const EngineUsage& usage, const std::string& engine) {
  for (const EngineBusy& e : usage.engines)
    if (e.engine == engine) return e.busy_percent;
  ADD_FAILURE() << "no engine " << engine;
  return -1;
}

JobSampler sampler_for(const FakeProc& proc, bool worker_predates_job = false) {
  SamplerOptions options;
  options.proc_root = proc.root();
  options.worker_predates_job = worker_predates_job;
  return JobSampler(options, kPid, 0.0);
}

constexpr uint64_t kSecond = 1000000000;

TEST(Sampler, I915SeveralFdsDuplicateClientsAndCapacity) {
  FakeProc proc;
  proc.set_fd(0, "/dev/null", "pos: 0\nflags: 02\nmnt_id: 15\n");
  proc.set_fd(1, "pipe:[4711]", "pos: 0\nflags: 01\nmnt_id: 15\n");
  // fds 5 and 6 are one client (a dup): counted once. fd 7 is a second client.
  proc.set_fd(5, "/dev/dri/renderD128", i915(7, kSecond / 2, kSecond));
  proc.set_fd(6, "/dev/dri/renderD128", i915(7, kSecond / 2, kSecond));
  proc.set_fd(7, "/dev/dri/renderD128", i915(8, 0, 6 * kSecond / 10));
  JobSampler sampler = sampler_for(proc);
  sampler.sample(1.0);
  EXPECT_TRUE(sampler.live().available);
  EXPECT_DOUBLE_EQ(busy(sampler.live(), "render"), 50);
  EXPECT_DOUBLE_EQ(busy(sampler.live(), "video"), 80);  // 1.6 s / (1 s x 2 engines)
  EXPECT_DOUBLE_EQ(busy(sampler.live(), "copy"), 0);    // known to be idle: a true 0 %

  proc.set_fd(5, "/dev/dri/renderD128", i915(7, 3 * kSecond / 2, 2 * kSecond));
  proc.set_fd(6, "/dev/dri/renderD128", i915(7, 3 * kSecond / 2, 2 * kSecond));
  proc.set_fd(7, "/dev/dri/renderD128", i915(8, 0, kSecond));
  sampler.sample(3.0);
  EXPECT_DOUBLE_EQ(busy(sampler.live(), "render"), 50);  // 1 s in 2 s
  EXPECT_DOUBLE_EQ(busy(sampler.live(), "video"), 35);   // 1.4 s / (2 s x 2)
  EXPECT_DOUBLE_EQ(sampler.live().interval_s, 2);

  EngineUsage job = sampler.average();
  EXPECT_TRUE(job.available);
  EXPECT_EQ(job.source, "drm-fdinfo");
  EXPECT_EQ(job.driver, "i915");
  EXPECT_EQ(job.samples, 2);
  EXPECT_DOUBLE_EQ(job.interval_s, 3);
  EXPECT_DOUBLE_EQ(busy(job, "render"), 50);  // 1.5 s of 3 s
  EXPECT_DOUBLE_EQ(busy(job, "video"), 50);   // 3 s / (3 s x 2)
  EXPECT_EQ(job.engines.size(), 4u);
  for (const EngineBusy& e : job.engines) {
    if (e.engine == "video") {
      EXPECT_EQ(e.capacity, 2u);
    }
  }
  // Two clients of 64 KiB each (the dup once).
  EXPECT_EQ(job.memory_total_peak_bytes, 2 * 64 * 1024);
  EXPECT_EQ(job.memory_resident_peak_bytes, 2 * 32 * 1024);
}

TEST(Sampler, CounterGoingBackwardsKeepsItsPreviousValue) {
  FakeProc proc;
  proc.set_fd(5, "/dev/dri/renderD128", i915(7, kSecond, 0));
  JobSampler sampler = sampler_for(proc);
  sampler.sample(2.0);
  EXPECT_DOUBLE_EQ(busy(sampler.live(), "render"), 50);
  proc.set_fd(5, "/dev/dri/renderD128", i915(7, kSecond / 4, 0));  // backwards
  sampler.sample(3.0);
  EXPECT_DOUBLE_EQ(busy(sampler.live(), "render"), 0);
  proc.set_fd(5, "/dev/dri/renderD128", i915(7, 3 * kSecond / 2, 0));  // +0.5 s over 1 s
  sampler.sample(4.0);
  EXPECT_DOUBLE_EQ(busy(sampler.live(), "render"), 50);
  EXPECT_DOUBLE_EQ(busy(sampler.average(), "render"), 37.5);  // 1.5 s of 4 s
}

TEST(Sampler, MemoryIsThePeak) {
  FakeProc proc;
  proc.set_fd(5, "/dev/dri/renderD128", i915(7, 0, 0, 512));
  JobSampler sampler = sampler_for(proc);
  sampler.sample(1.0);
  proc.set_fd(5, "/dev/dri/renderD128", i915(7, 0, 0, 128));
  sampler.sample(2.0);
  EXPECT_EQ(sampler.average().memory_total_peak_bytes, 512 * 1024);
  EXPECT_EQ(sampler.average().memory_resident_peak_bytes, 256 * 1024);
}

TEST(Sampler, XeCyclesOverTotalCycles) {
  FakeProc proc;
  // A 1000 Hz GPU clock: total-cycles advance 1000 a second. The client already has 100 busy
  // render cycles when first read.
  proc.set_fd(5, "/dev/dri/renderD129", xe(3, 100, 0, 1000));
  JobSampler sampler = sampler_for(proc);
  sampler.sample(1.0);  // the baseline: no rate known yet, so no figure (not a 0 %)
  EXPECT_FALSE(sampler.live().available);
  EXPECT_TRUE(sampler.live().engines.empty());
  EXPECT_NE(sampler.live().unavailable_reason.find("baseline"), std::string::npos);
  proc.set_fd(5, "/dev/dri/renderD129", xe(3, 600, 1000, 2000));
  sampler.sample(2.0);
  EXPECT_DOUBLE_EQ(busy(sampler.live(), "render"), 50);  // 500 / 1000
  EXPECT_DOUBLE_EQ(busy(sampler.live(), "video"), 50);   // 1000 / (1000 x 2 engines)
  proc.set_fd(5, "/dev/dri/renderD129", xe(3, 600, 1500, 3000));
  sampler.sample(3.0);
  EXPECT_DOUBLE_EQ(busy(sampler.live(), "render"), 0);
  EXPECT_DOUBLE_EQ(busy(sampler.live(), "video"), 25);
  EngineUsage job = sampler.average();
  EXPECT_EQ(job.driver, "xe");
  // Every busy cycle since the fd opened, over the job's 3 s of GPU clock.
  EXPECT_NEAR(busy(job, "render"), 100.0 * 600 / 3000, 1e-9);
  EXPECT_NEAR(busy(job, "video"), 100.0 * 1500 / (3000 * 2), 1e-9);
  EXPECT_EQ(job.memory_total_peak_bytes, 1024 * 1024);
}

TEST(Sampler, CpuCoresFromStat) {
  FakeProc proc;
  long ticks = sysconf(_SC_CLK_TCK);
  proc.set_cpu_ticks(ticks, ticks / 2);  // 1.5 CPU seconds
  JobSampler sampler = sampler_for(proc);
  sampler.sample(1.0);
  EXPECT_DOUBLE_EQ(sampler.live().cpu_cores, 1.5);
  proc.set_cpu_ticks(2 * ticks, ticks);  // 3 CPU seconds
  sampler.sample(2.0);
  EXPECT_DOUBLE_EQ(sampler.live().cpu_cores, 1.5);
  EXPECT_DOUBLE_EQ(sampler.average().cpu_cores, 1.5);
  EXPECT_EQ(parse_stat_cpu_seconds("garbage"), std::nullopt);
}

// A job shorter than one sampling interval: no tick ever read it. Its end still counts its CPU:
// from /proc when the worker lives on (a warm one), from wait4's figure when it was reaped and
// /proc has nothing left.
TEST(Sampler, AJobShorterThanOneIntervalIsMeasuredAtItsEnd) {
  FakeProc proc;
  long ticks = sysconf(_SC_CLK_TCK);
  proc.set_cpu_ticks(ticks / 5, 0);  // 0.2 CPU seconds
  JobSampler alive = sampler_for(proc);
  alive.finish(0.25, std::nullopt);
  EXPECT_DOUBLE_EQ(alive.average().cpu_cores * alive.average().interval_s, 0.2);

  FakeProc gone;
  fs::remove_all(gone.pid_dir());
  JobSampler reaped = sampler_for(gone);
  reaped.finish(0.25, 0.3);
  EXPECT_DOUBLE_EQ(reaped.average().interval_s, 0.25);
  EXPECT_DOUBLE_EQ(reaped.average().cpu_cores * reaped.average().interval_s, 0.3);
}

// A warm worker that ends after its job was reaped: what it used before the job is not the
// job's, whichever way its end was read.
TEST(Sampler, AReapedWarmWorkerCountsFromTheJobsStart) {
  FakeProc proc;
  long ticks = sysconf(_SC_CLK_TCK);
  proc.set_cpu_ticks(ticks, 0);  // 1 CPU second before the job
  JobSampler sampler = sampler_for(proc, /*worker_predates_job=*/true);
  proc.set_cpu_ticks(2 * ticks, 0);
  sampler.sample(1.0);
  fs::remove_all(proc.pid_dir());
  sampler.finish(2.0, 2.5);  // reaped: 1.5 s of CPU since the job began
  EXPECT_DOUBLE_EQ(sampler.average().cpu_cores * sampler.average().interval_s, 1.5);
}

// A warm worker set itself up, and may have run earlier jobs, before this one: the CPU time
// and the i915 busy time it holds when the job begins are not the job's.
TEST(Sampler, AWorkerOlderThanTheJobCountsFromTheJobsStart) {
  FakeProc proc;
  long ticks = sysconf(_SC_CLK_TCK);
  proc.set_cpu_ticks(ticks / 2, 0);  // 0.5 CPU seconds before the job
  proc.set_fd(5, "/dev/dri/renderD128", i915(7, kSecond / 2, kSecond));
  JobSampler sampler = sampler_for(proc, /*worker_predates_job=*/true);
  proc.set_cpu_ticks(ticks + ticks / 2, ticks / 2);  // 1.5 more
  proc.set_fd(5, "/dev/dri/renderD128", i915(7, kSecond / 2, kSecond + kSecond / 4));
  sampler.sample(1.0);
  EXPECT_DOUBLE_EQ(sampler.live().cpu_cores, 1.5);
  EXPECT_NEAR(busy(sampler.live(), "video"), 12.5, 1e-9);  // 0.25 s of 2 engines in 1 s
  EXPECT_NEAR(busy(sampler.live(), "render"), 0.0, 1e-9);
  EXPECT_DOUBLE_EQ(sampler.average().cpu_cores, 1.5);
}

TEST(Sampler, NoDrmFdSaysNotAvailableAndWhyNeverZero) {
  FakeProc proc;
  proc.set_fd(0, "/dev/null", "pos: 0\nflags: 02\n");
  SamplerOptions options;
  options.proc_root = proc.root();
  options.no_gpu_note = " (a software job)";
  JobSampler sampler(options, kPid, 0.0);
  sampler.sample(1.0);
  EngineUsage job = sampler.average();
  EXPECT_FALSE(job.available);
  EXPECT_TRUE(job.engines.empty());
  EXPECT_EQ(job.unavailable_reason,
            "not available: worker 4242 has no DRM file descriptor (a software job)");
  EXPECT_FALSE(sampler.live().available);
  EXPECT_TRUE(sampler.live().engines.empty());
}

TEST(Sampler, DrmFdWithoutUsageStats) {
  FakeProc proc;
  proc.set_fd(5, "/dev/dri/renderD128", "pos: 0\nflags: 02\nmnt_id: 24\n");
  JobSampler sampler = sampler_for(proc);
  sampler.sample(1.0);
  EXPECT_FALSE(sampler.average().available);
  EXPECT_NE(sampler.average().unavailable_reason.find("carry no engine counters"),
            std::string::npos);
}

TEST(Sampler, UnreadableProcSaysWhy) {
  FakeProc proc;
  SamplerOptions options;
  options.proc_root = proc.root();
  JobSampler sampler(options, kPid + 1, 0.0);  // no such process in the fake /proc
  EXPECT_EQ(sampler.live().unavailable_reason, "not available: not sampled yet");
  EXPECT_EQ(sampler.average().unavailable_reason,
            "not available: the job ended before its first sample");
  sampler.sample(1.0);
  EngineUsage job = sampler.average();
  EXPECT_FALSE(job.available);
  EXPECT_EQ(job.unavailable_reason, "not available: cannot read " + proc.root() +
                                        "/4243/fdinfo: No such file or directory");
}

TEST(Sampler, NvmlMissingSaysSo) {
  std::string reason;
  EXPECT_EQ(Nvml::load("libnvidia-ml-absent.so.1", reason), nullptr);
  EXPECT_EQ(reason, "not available: libnvidia-ml-absent.so.1 not found");

  FakeProc proc;
  SamplerOptions options;
  options.proc_root = proc.root();
  options.nvml = true;
  options.nvml_reason = reason;
  JobSampler sampler(options, kPid, 0.0);
  sampler.sample(1.0);
  EXPECT_FALSE(sampler.average().available);
  EXPECT_EQ(sampler.average().unavailable_reason, reason);

  std::shared_ptr<Nvml> shared = Nvml::shared(reason);
  if (shared) GTEST_SKIP() << "libnvidia-ml.so.1 is installed here";
  EXPECT_EQ(reason, "not available: libnvidia-ml.so.1 not found");
}

TEST(EngineUsageJson, RoundTripsAndFormats) {
  EngineUsage usage;
  usage.source = "drm-fdinfo";
  usage.driver = "i915";
  usage.available = true;
  usage.engines = {{"video", "video (decode+encode)", 41.5, 2}};
  usage.memory_total_peak_bytes = 3 * 1024 * 1024;
  usage.cpu_cores = 0.5;
  usage.samples = 4;
  EngineUsage back = engine_usage_from_json(engine_usage_to_json(usage));
  EXPECT_EQ(back.driver, "i915");
  ASSERT_EQ(back.engines.size(), 1u);
  EXPECT_EQ(back.engines[0].capacity, 2u);
  EXPECT_DOUBLE_EQ(back.engines[0].busy_percent, 41.5);
  EXPECT_EQ(back.memory_total_peak_bytes, 3 * 1024 * 1024);
  EXPECT_EQ(format_engine_usage(back),
            "video (decode+encode) 41.5% | gpu memory 3.0 MiB | cpu 0.50 cores");
  EngineUsage none;
  none.unavailable_reason = "not available: worker 1 has no DRM file descriptor";
  EXPECT_EQ(format_engine_usage(none), none.unavailable_reason);
}

}  // namespace
}  // namespace tc::metrics
