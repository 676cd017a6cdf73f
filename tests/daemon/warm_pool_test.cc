// Warm workers (worker_pool.h) through a real daemon: a job runs on a worker started ahead of
// it and another takes its place; a worker killed while it waits is replaced and no job is lost
// to it; a worker whose device did not open is never handed a job. What a user checks: the
// daemon's children, its /metrics, and the jobs' outcomes.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "daemon_fixture.h"
#include "service/daemon/config.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace tc::test;

namespace {

class WarmPool : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(media);
    ASSERT_TRUE(make_clip(input));
  }

  CommandResult client(std::vector<std::string> args) {
    args.insert(args.end(), {"--server", daemon.address()});
    return run_client(args);
  }

  // Submits `input` -> `name` with `extra` flags and waits for its end; the job's final JSON.
  json run_job(const std::string& name, std::vector<std::string> extra = {},
               const std::string& from = "") {
    std::vector<std::string> args = {
        "submit", from.empty() ? input : from, media + "/" + name, "--size", "160x120", "--wait",
        "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    CommandResult r = client(args);
    json job = json::parse(r.out, nullptr, false);
    return job.is_object() ? job : json{{"client_error", r.err}};
  }

  // A figure of /metrics: the sample whose name and labels start with `series`; -1 if none.
  double metric(const std::string& series) {
    std::string text = http_get(daemon.metrics_address(), "/metrics");
    size_t at = text.find("\n" + series);
    if (at == std::string::npos) return -1;
    size_t space = text.find(' ', text.find('}', at));
    return std::stod(text.substr(space + 1));
  }
  double warm_ready(const std::string& device, const std::string& backend = "software") {
    return metric("transcoded_warm_workers{device=\"" + device + "\",backend=\"" + backend + "\"}");
  }
  double failures(const std::string& device, const std::string& kind) {
    return metric("transcoded_warm_worker_failures_total{device=\"" + device + "\",kind=\"" + kind +
                  "\"}");
  }
  double starts(const std::string& device, const std::string& kind) {
    return metric("transcoded_worker_starts_total{device=\"" + device + "\",kind=\"" + kind +
                  "\"}");
  }
  // The daemon's one worker once the pool has it ready.
  pid_t ready_worker() {
    pid_t pid = -1;
    wait_until([&] {
      std::vector<pid_t> children = workers_of(daemon.pid());
      if (children.size() != 1 || warm_ready("software") != 1) return false;
      pid = children[0];
      return true;
    });
    return pid;
  }

  TempDir dir;
  std::string media = dir.path() + "/media";
  std::string input = media + "/in.mp4";
  Daemon daemon{dir.path() + "/state", media};
};

TEST_F(WarmPool, AJobRunsOnAReadyWorkerAndAnotherTakesItsPlace) {
  ASSERT_TRUE(daemon.start({"--warm-workers", "1", "--metrics-listen", "127.0.0.1:0"}));
  pid_t first = ready_worker();
  ASSERT_GT(first, 0) << "no warm worker became ready";

  json job = run_job("warm.mp4");
  EXPECT_EQ(job.value("state", ""), "JOB_STATE_SUCCEEDED") << job.dump();
  EXPECT_EQ(video_frames(media + "/warm.mp4"), 30);
  EXPECT_EQ(starts("software", "warm"), 1);
  EXPECT_EQ(starts("software", "cold"), 0);
  // One job per worker: the one that ran it is gone, a new one waits.
  pid_t second = ready_worker();
  EXPECT_GT(second, 0);
  EXPECT_NE(second, first);
  EXPECT_FALSE(fs::exists("/proc/" + std::to_string(first)));

  // The replacement outlives the first job's thread (a worker dies with the thread that
  // started it) and runs the next job.
  job = run_job("warm2.mp4");
  EXPECT_EQ(job.value("state", ""), "JOB_STATE_SUCCEEDED") << job.dump();
  EXPECT_EQ(starts("software", "warm"), 2);
  EXPECT_EQ(failures("software", "lost"), 0);
  EXPECT_EQ(failures("software", "setup"), 0);
}

TEST_F(WarmPool, AWorkerKilledWhileItWaitsIsReplacedAndNoJobLandsOnIt) {
  ASSERT_TRUE(daemon.start({"--warm-workers", "1", "--metrics-listen", "127.0.0.1:0"}));
  pid_t killed = ready_worker();
  ASSERT_GT(killed, 0);
  ASSERT_EQ(::kill(killed, SIGKILL), 0);
  pid_t replacement = -1;
  ASSERT_TRUE(wait_until([&] { return (replacement = ready_worker()) != killed; }));
  EXPECT_EQ(failures("software", "lost"), 1);

  json job = run_job("after-kill.mp4");
  EXPECT_EQ(job.value("state", ""), "JOB_STATE_SUCCEEDED") << job.dump();
  EXPECT_EQ(starts("software", "warm"), 1);
  EXPECT_FALSE(fs::exists("/proc/" + std::to_string(replacement)))
      << "the job ran elsewhere than on the ready replacement";
}

// A job that finds no worker ready takes the one being set up rather than starting another:
// here every set-up takes 2 s more (TC_TEST_FAULT=slow-setup) and the job comes at once.
TEST_F(WarmPool, AJobTakesTheWorkerBeingSetUpRatherThanStartingOne) {
  ASSERT_TRUE(
      daemon.start({"--warm-workers", "1", "--metrics-listen", "127.0.0.1:0"}, "slow-setup"));
  json job = run_job("early.mp4");
  EXPECT_EQ(job.value("state", ""), "JOB_STATE_SUCCEEDED") << job.dump();
  EXPECT_EQ(starts("software", "warm"), 1);
  EXPECT_EQ(starts("software", "cold"), 0);
  EXPECT_EQ(failures("software", "setup"), 0);
}

// With worker_jobs 3 a warm worker runs three jobs, one after another, then ends and another
// takes its place; a job that fails ends its worker at once.
TEST_F(WarmPool, AWorkerRunsUpToWorkerJobsJobsThenEnds) {
  ASSERT_TRUE(daemon.start(
      {"--warm-workers", "1", "--worker-jobs", "3", "--metrics-listen", "127.0.0.1:0"}));
  pid_t worker = ready_worker();
  ASSERT_GT(worker, 0);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(ready_worker(), worker) << "before job " << i;
    json job = run_job("reuse" + std::to_string(i) + ".mp4");
    EXPECT_EQ(job.value("state", ""), "JOB_STATE_SUCCEEDED") << job.dump();
    EXPECT_EQ(video_frames(media + "/reuse" + std::to_string(i) + ".mp4"), 30);
  }
  pid_t fresh = ready_worker();
  EXPECT_NE(fresh, worker);
  EXPECT_FALSE(fs::exists("/proc/" + std::to_string(worker)));

  std::ofstream(media + "/bad.mp4") << "not media";
  json bad = run_job("bad-out.mp4", {}, media + "/bad.mp4");
  EXPECT_EQ(bad.value("state", ""), "JOB_STATE_FAILED") << bad.dump();
  EXPECT_NE(ready_worker(), fresh) << "a worker whose job failed took another";
  EXPECT_EQ(starts("software", "warm"), 4);
  EXPECT_EQ(failures("software", "lost"), 0);
}

TEST_F(WarmPool, WithZeroEveryJobStartsItsOwnWorker) {
  ASSERT_TRUE(daemon.start({"--warm-workers", "0", "--metrics-listen", "127.0.0.1:0"}));
  EXPECT_TRUE(workers_of(daemon.pid()).empty());
  json job = run_job("cold.mp4");
  EXPECT_EQ(job.value("state", ""), "JOB_STATE_SUCCEEDED") << job.dump();
  EXPECT_EQ(starts("software", "cold"), 1);
  EXPECT_EQ(starts("software", "warm"), 0);
  EXPECT_TRUE(workers_of(daemon.pid()).empty());
}

// A device whose context does not open (TC_TEST_FAULT=device: every --open-device fails, as a
// wedged or missing GPU would): its warm workers are dropped as they say so, none is counted
// ready, and a job for it starts a worker cold, which runs it. Needs a Vulkan device
// (lavapipe in CI).
TEST_F(WarmPool, AWorkerWhoseDeviceFailedIsNeverHandedAJob) {
  ASSERT_TRUE(daemon.start({"--warm-workers", "1", "--metrics-listen", "127.0.0.1:0", "--backend",
                            "software", "--backend", "vulkan"},
                           "device"));
  json caps = json::parse(client({"caps", "--json"}).out, nullptr, false);
  std::string device;  // the scheduler's name: "vulkan PATH"
  for (const json& d : caps.value("devices", json::array()))
    if (d.value("backend", "") == "vulkan" && d.value("usable", false))
      device = "vulkan " + d.value("path", "");
  if (device.empty()) GTEST_SKIP() << "no Vulkan device here: " << caps.dump();
  // The software pool fills; the Vulkan one tries, fails, and backs off.
  ASSERT_GT(ready_worker(), 0);
  EXPECT_EQ(warm_ready(device, "vulkan"), 0);
  EXPECT_GE(failures(device, "setup"), 1);

  json job = run_job("vk.mp4", {"--backend", "vulkan"});
  EXPECT_EQ(job.value("state", ""), "JOB_STATE_SUCCEEDED") << job.dump();
  EXPECT_EQ(starts(device, "warm"), 0);
  EXPECT_EQ(starts(device, "cold"), 1);
}

}  // namespace

// The zygote (zygote.h), on by default: the ready worker was forked by it, yet it is the
// daemon's child, in a process group of its own, and it runs the job; the zygote stays and
// forks the replacement.
TEST_F(WarmPool, WorkersAreForkedByTheZygoteAsTheDaemonsChildren) {
  if (!tc::daemon::kZygoteByDefault) GTEST_SKIP() << "sanitizer builds execute every worker";
  ASSERT_TRUE(daemon.start({"--warm-workers", "1", "--metrics-listen", "127.0.0.1:0"}));
  pid_t worker = ready_worker();
  ASSERT_GT(worker, 0);
  pid_t zygote = zygote_of(daemon.pid());
  ASSERT_GT(zygote, 0) << "no zygote among the daemon's children";
  EXPECT_EQ(process_name(worker), "tc-worker");
  EXPECT_EQ(::getpgid(worker), worker) << "a forked worker shares the zygote's process group";
  EXPECT_EQ(fs::read_symlink("/proc/" + std::to_string(worker) + "/exe"),
            fs::read_symlink("/proc/" + std::to_string(daemon.pid()) + "/exe"));

  json job = run_job("forked.mp4");
  EXPECT_EQ(job.value("state", ""), "JOB_STATE_SUCCEEDED") << job.dump();
  EXPECT_EQ(video_frames(media + "/forked.mp4"), 30);
  EXPECT_EQ(starts("software", "warm"), 1);
  pid_t next = ready_worker();
  EXPECT_NE(next, worker);
  EXPECT_EQ(process_name(next), "tc-worker");
  EXPECT_EQ(zygote_of(daemon.pid()), zygote);
}

// A zygote killed is no job lost: a worker asked of it meanwhile is executed instead, and the
// pool starts another zygote, which forks the workers after.
TEST_F(WarmPool, AZygoteKilledIsReplacedAndNoJobIsLost) {
  if (!tc::daemon::kZygoteByDefault) GTEST_SKIP() << "sanitizer builds execute every worker";
  ASSERT_TRUE(daemon.start({"--warm-workers", "0", "--metrics-listen", "127.0.0.1:0"}));
  pid_t zygote = -1;
  ASSERT_TRUE(wait_until([&] { return (zygote = zygote_of(daemon.pid())) > 0; }));
  ASSERT_EQ(::kill(zygote, SIGKILL), 0);
  json job = run_job("during.mp4");
  EXPECT_EQ(job.value("state", ""), "JOB_STATE_SUCCEEDED") << job.dump();
  EXPECT_EQ(video_frames(media + "/during.mp4"), 30);
  pid_t replacement = -1;
  ASSERT_TRUE(wait_until([&] {
    replacement = zygote_of(daemon.pid());
    return replacement > 0 && replacement != zygote;
  })) << "no zygote after the first was killed";
  job = run_job("after.mp4");
  EXPECT_EQ(job.value("state", ""), "JOB_STATE_SUCCEEDED") << job.dump();
  EXPECT_EQ(starts("software", "cold"), 2);
  EXPECT_TRUE(workers_of(daemon.pid()).empty()) << "a worker outlived its job";
}

// A daemon killed takes its zygote and the workers it forked with it (their parent-death
// signal follows the daemon, not the zygote).
TEST_F(WarmPool, TheZygoteAndItsWorkersDieWithTheDaemon) {
  if (!tc::daemon::kZygoteByDefault) GTEST_SKIP() << "sanitizer builds execute every worker";
  ASSERT_TRUE(daemon.start({"--warm-workers", "1", "--metrics-listen", "127.0.0.1:0"}));
  pid_t worker = ready_worker();
  ASSERT_GT(worker, 0);
  pid_t zygote = zygote_of(daemon.pid());
  ASSERT_GT(zygote, 0);
  daemon.stop(SIGKILL);
  auto gone = [](pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    size_t paren = text.rfind(')');
    return paren == std::string::npos || text.substr(paren + 2, 1) == "Z";
  };
  EXPECT_TRUE(wait_until([&] { return gone(worker) && gone(zygote); }))
      << "a worker or the zygote outlived the daemon";
}

TEST_F(WarmPool, WithTheZygoteOffWorkersAreExecuted) {
  ASSERT_TRUE(daemon.start(
      {"--warm-workers", "1", "--worker-zygote=false", "--metrics-listen", "127.0.0.1:0"}));
  pid_t worker = ready_worker();
  ASSERT_GT(worker, 0);
  EXPECT_EQ(zygote_of(daemon.pid()), -1);
  EXPECT_EQ(process_name(worker), "transcoded");
  json job = run_job("executed.mp4");
  EXPECT_EQ(job.value("state", ""), "JOB_STATE_SUCCEEDED") << job.dump();
}

namespace {

// The values of `field` ("NoNewPrivs", "CapEff") in every thread's status of process `pid`,
// as "TID=value" words, for what a failure shows.
std::vector<std::string> per_thread(pid_t pid, const std::string& field) {
  std::vector<std::string> values;
  std::error_code gone;
  for (const fs::directory_entry& task :
       fs::directory_iterator("/proc/" + std::to_string(pid) + "/task", gone)) {
    std::ifstream status(task.path() / "status");
    for (std::string line; std::getline(status, line);)
      if (line.rfind(field + ":", 0) == 0)
        values.push_back(task.path().filename().string() + "=" +
                         line.substr(line.find_first_not_of(" \t", field.size() + 1)));
  }
  return values;
}

// The threads of `pid` whose `field` is not `expected`; empty when every one's is.
std::vector<std::string> threads_without(pid_t pid, const std::string& field,
                                         const std::string& expected) {
  std::vector<std::string> off;
  for (const std::string& value : per_thread(pid, field))
    if (value.substr(value.find('=') + 1) != expected) off.push_back(value);
  return off;
}

std::string environment_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/environ");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::replace(text.begin(), text.end(), '\0', '\n');
  return text;
}

const std::string kNone = "0000000000000000";

// What a user of the daemon (or an auditor) checks of a worker from outside: every thread has
// no_new_privs and the seccomp filter, none holds a capability when the daemon is root, and its
// environment holds none of the daemon's secrets.
void expect_confined(pid_t worker, const std::string& when) {
  ASSERT_FALSE(per_thread(worker, "NoNewPrivs").empty())
      << when << ": worker " << worker << " gone";
  EXPECT_EQ(threads_without(worker, "NoNewPrivs", "1"), std::vector<std::string>{}) << when;
  EXPECT_EQ(threads_without(worker, "Seccomp", "2"), std::vector<std::string>{}) << when;
  if (::geteuid() == 0) {
    for (const char* set : {"CapEff", "CapPrm", "CapBnd", "CapAmb"})
      EXPECT_EQ(threads_without(worker, set, kNone), std::vector<std::string>{})
          << when << " " << set;
  }
  std::string environment = environment_of(worker);
  EXPECT_EQ(environment.find("PGPASSWORD"), std::string::npos) << when << ":\n" << environment;
  EXPECT_EQ(environment.find("sekrit"), std::string::npos) << when << ":\n" << environment;
}

class ConfinedWorkers : public WarmPool, public ::testing::WithParamInterface<bool> {
 protected:
  // The daemon's environment holds secrets, as a cluster node's does; its workers must not.
  void start_with_secrets(std::vector<std::string> args) {
    ::setenv("PGPASSWORD", "sekrit-store", 1);
    ::setenv("TRANSCODE_TOKEN", "sekrit-token", 1);
    if (!GetParam()) args.push_back("--worker-zygote=false");
    ASSERT_TRUE(daemon.start(args, "slow"));
    ::unsetenv("PGPASSWORD");
    ::unsetenv("TRANSCODE_TOKEN");
  }
};

// Forked by the zygote (true) or executed (false), waiting for a job and busy with one: the
// confinement holds on every thread, the codecs' included.
TEST_P(ConfinedWorkers, EveryThreadOfAWorkerIsConfinedAndHoldsNoSecret) {
  if (GetParam() && !tc::daemon::kZygoteByDefault)
    GTEST_SKIP() << "sanitizer builds execute every worker";
  ASSERT_TRUE(make_clip(input, 8));
  start_with_secrets({"--warm-workers", "1", "--metrics-listen", "127.0.0.1:0"});
  pid_t waiting = ready_worker();
  ASSERT_GT(waiting, 0);
  EXPECT_EQ(process_name(waiting), GetParam() ? "tc-worker" : "transcoded");
  expect_confined(waiting, "waiting");

  CommandResult submitted = client({"submit", input, media + "/busy.mp4", "--size", "160x120"});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  // Busy: the decoder's and encoder's threads exist (more than the worker's own one or two).
  ASSERT_TRUE(wait_until([&] { return per_thread(waiting, "NoNewPrivs").size() > 2; }))
      << "the worker never got busy";
  expect_confined(waiting, "busy");
}

INSTANTIATE_TEST_SUITE_P(ForkedOrExecuted, ConfinedWorkers, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Forked" : "Executed"; });

}  // namespace
