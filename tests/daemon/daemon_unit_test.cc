// Daemon pieces without a server: settings, store, scheduler, request policy, worker protocol.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "pipeline/exec/executor.h"
#include "pipeline/plan/plan.h"
#include "service/daemon/config.h"
#include "service/daemon/jobs/job_manager.h"
#include "service/daemon/policy/memory_budget.h"
#include "service/daemon/policy/request_policy.h"
#include "service/daemon/policy/scheduler.h"
#include "service/daemon/store/job_store.h"
#include "service/daemon/store/job_store_schema.h"
#include "service/daemon/worker/worker_main.h"
#include "service/daemon/worker/worker_protocol.h"
#include "service/daemon/worker/worker_supervisor.h"
#include "tests/support/media_tools.h"
#include "tests/unit/fixtures.h"

namespace fs = std::filesystem;
using namespace tc;
using namespace tc::daemon;

namespace {

using tc::testing::TempDir;

Result<DaemonConfig> load(std::vector<std::string> args) {
  bool help = false;
  return load_config(args, help);
}

// A database as a test needs it, written with SQL of its own: the store's code is what is
// under test, so the fixture does not borrow it.
class RawDb {
 public:
  explicit RawDb(const std::string& path) { sqlite3_open(path.c_str(), &db_); }
  ~RawDb() { sqlite3_close(db_); }
  RawDb(const RawDb&) = delete;
  RawDb& operator=(const RawDb&) = delete;
  void exec(const std::string& sql) {
    char* error = nullptr;
    ASSERT_EQ(sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
        << (error ? error : "") << "\n"
        << sql;
  }
  int user_version() {
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(db_, "PRAGMA user_version", -1, &s, nullptr);
    int version = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int(s, 0) : -1;
    sqlite3_finalize(s);
    return version;
  }

 private:
  sqlite3* db_ = nullptr;
};

// The table exactly as the first release created it (no user_version: 0).
constexpr const char* kReleaseOneTable = R"sql(
CREATE TABLE IF NOT EXISTS jobs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  request_id TEXT UNIQUE,          -- NULL when the client gave none
  state INTEGER NOT NULL,
  priority INTEGER NOT NULL,
  labels TEXT NOT NULL,            -- JSON object
  spec TEXT NOT NULL,              -- tc::job_spec_to_json
  create_ms INTEGER NOT NULL,
  start_ms INTEGER NOT NULL,
  end_ms INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  device TEXT NOT NULL,
  progress TEXT NOT NULL,          -- JSON, the last progress seen
  report TEXT NOT NULL,            -- tc::report_to_json, when SUCCEEDED
  error_code TEXT NOT NULL,        -- code_key(), "ok" when none
  error_message TEXT NOT NULL,
  error_retryable INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS jobs_by_state ON jobs(state, seq);
)sql";

// A succeeded job as the first release wrote it: its spec indented, its stages' devices as
// text only, the engines appended to the worker's report.
constexpr const char* kReleaseOneRow = R"sql(
INSERT INTO jobs (id, request_id, state, priority, labels, spec, create_ms, start_ms, end_ms,
  attempt, device, progress, report, error_code, error_message, error_retryable)
VALUES ('old', 'req-7', 3, 5, '{"team":"video"}',
'{
  "backend": "vaapi",
  "device": "",
  "duration_s": 0.0,
  "input": "/media/in.mp4",
  "outputs": [
    {
      "audio": "auto",
      "audio_bitrate": 128000,
      "b_frames": -1,
      "bitrate": 0,
      "codec": "hevc",
      "container": "",
      "gop": 0,
      "height": 720,
      "path": "/media/out.mkv",
      "preset": "",
      "quality": 26,
      "rate_control": "quality",
      "width": 1280
    }
  ],
  "start_s": 10.0
}',
1000, 2000, 9000, 1, 'vaapi /dev/dri/renderD128',
'{"elapsed_s":2.0,"fps":150.0,"frames_decoded":300,"frames_encoded":300,"media_duration_s":10.0,"media_time_s":10.0,"speed":5.0}',
'{"backend":"vaapi","backend_reason":"the only device","cpu_s":1.0,"first_frame_s":0.1,"fps":150.0,"frames_decoded":300,"input":"/media/in.mp4","media_duration_s":10.0,"outputs":[{"bitrate":80000,"bytes":100000,"device":"vaapi /dev/dri/renderD128 (i915)","duration_s":10.0,"encoder":"hevc_vaapi","frames":300,"height":720,"path":"/media/out.mkv","width":1280}],"setup_s":0.2,"speed":5.0,"stages":[{"device":"vaapi /dev/dri/renderD128 (i915)","name":"decode","what":"h264 (VA-API hwaccel)"},{"device":"cpu","name":"mux out0","what":"matroska"}],"wall_s":2.0,"engines":{"available":false,"cpu_cores":0.5,"driver":"","engines":[],"interval_s":2.0,"memory_resident_peak_bytes":0,"memory_total_peak_bytes":0,"samples":4,"source":"","unavailable_reason":"not available: test"}}',
'ok', '', 0);
)sql";

}  // namespace

TEST(Config, FlagsOverrideTheFileAndListsRepeat) {
  TempDir dir;
  std::string yaml = dir.file("d.yaml",
                              "listen: unix:/tmp/x.sock\nmax_queue: 7\nmedia_roots: [/a, /b]\n"
                              "stall_timeout: 5\n");
  Result<DaemonConfig> c = load({"--config", yaml, "--max-queue", "9", "--media-root", "/c"});
  ASSERT_TRUE(c.is_ok()) << c.status().message();
  EXPECT_EQ(c->listen, "unix:/tmp/x.sock");
  EXPECT_EQ(c->max_queue, 9);
  EXPECT_EQ(c->media_roots, std::vector<std::string>{"/c"});
  EXPECT_EQ(c->stall_timeout_s, 5);
}

TEST(Config, FlagsTakeKeyEqualsValueAndUnknownOnesSaySo) {
  Result<DaemonConfig> c = load({"--max-queue=9", "--media-root=/a", "--media-root", "/b",
                                 "--allow-insecure-remote", "--listen=0.0.0.0:1"});
  ASSERT_TRUE(c.is_ok()) << c.status().message();
  EXPECT_EQ(c->max_queue, 9);
  EXPECT_EQ(c->media_roots, (std::vector<std::string>{"/a", "/b"}));
  EXPECT_TRUE(c->allow_insecure_remote);
  EXPECT_EQ(c->listen, "0.0.0.0:1");
  Result<DaemonConfig> unknown = load({"--max-queue", "9", "--slotz=3"});
  ASSERT_FALSE(unknown.is_ok());
  EXPECT_NE(unknown.status().message().find("unknown option --slotz"), std::string::npos)
      << unknown.status().message();
  bool help = false;
  EXPECT_TRUE(load_config({"--version"}, help).is_ok());
  EXPECT_TRUE(help);
}

// Found by the config fuzz target: a key that is a list ended the daemon in std::terminate.
TEST(Config, AListAsAKeyIsAnErrorNamingTheFile) {
  TempDir dir;
  std::string path = dir.file("k.yaml", "? [a, b]\n: 1\n");
  Result<DaemonConfig> config = load({"--config", path});
  ASSERT_FALSE(config.is_ok());
  EXPECT_NE(config.status().message().find(path), std::string::npos) << config.status().message();
}

TEST(Config, ErrorsNameTheSetting) {
  TempDir dir;
  Result<DaemonConfig> bad_flag = load({"--max-queue", "many"});
  ASSERT_FALSE(bad_flag.is_ok());
  EXPECT_NE(bad_flag.status().message().find("--max-queue"), std::string::npos);
  Result<DaemonConfig> bad_key = load({"--config", dir.file("d.yaml", "slotz: 3\n")});
  ASSERT_FALSE(bad_key.is_ok());
  EXPECT_NE(bad_key.status().message().find("slotz"), std::string::npos);
  Result<DaemonConfig> bad_value = load({"--config", dir.file("e.yaml", "slots: x\n")});
  ASSERT_FALSE(bad_value.is_ok());
  EXPECT_NE(bad_value.status().message().find("slots"), std::string::npos);
  DaemonConfig remote;
  remote.listen = "0.0.0.0:50051";
  Status status = validate_config(remote);
  ASSERT_FALSE(status.is_ok());
  EXPECT_NE(status.message().find("listen"), std::string::npos);
  remote.allow_insecure_remote = true;
  EXPECT_TRUE(validate_config(remote).is_ok());
  DaemonConfig zero_queue;
  zero_queue.max_queue = 0;
  EXPECT_NE(validate_config(zero_queue).message().find("max_queue"), std::string::npos);
  Result<DaemonConfig> no_discovery = load({"--discovery-timeout", "0"});
  ASSERT_TRUE(no_discovery.is_ok()) << no_discovery.status().message();
  EXPECT_NE(validate_config(*no_discovery).message().find("discovery_timeout"), std::string::npos);
}

// 0 (auto) by default; the worker's own --gop-parallel takes the same 0..16.
TEST(Config, GopParallelIsAutoByDefaultAndAtMostSixteen) {
  Result<DaemonConfig> plain = load({});
  ASSERT_TRUE(plain.is_ok()) << plain.status().message();
  EXPECT_EQ(plain->gop_parallel, 0);
  Result<DaemonConfig> one = load({"--gop-parallel", "1"});
  ASSERT_TRUE(one.is_ok()) << one.status().message();
  EXPECT_EQ(one->gop_parallel, 1);
  EXPECT_TRUE(validate_config(*one).is_ok());
  DaemonConfig many;
  many.gop_parallel = 17;
  EXPECT_NE(validate_config(many).message().find("gop_parallel"), std::string::npos);
}

TEST(Config, TheDocumentedExampleLoads) {
  Result<DaemonConfig> c =
      load({"--config", std::string(TC_SOURCE_DIR) + "/config/transcoded.yaml"});
  ASSERT_TRUE(c.is_ok()) << c.status().message();
  EXPECT_TRUE(validate_config(*c).is_ok());
  EXPECT_EQ(c->listen, "127.0.0.1:50051");
  EXPECT_EQ(c->media_roots, std::vector<std::string>{"/srv/media"});
  EXPECT_TRUE(c->allowed_protocols.empty());
}

TEST(JobStore, KeepsJobsAcrossReopenAndPages) {
  TempDir dir;
  {
    auto store = open_job_store({.state_dir = dir.path()});
    ASSERT_TRUE(store.is_ok()) << store.status().message();
    for (int i = 0; i < 5; ++i) {
      JobRecord job;
      job.id = "j" + std::to_string(i);
      job.labels = {{"k", "v"}};
      job.create_ms = 1000 + i;
      ASSERT_TRUE(store->jobs().insert(job).is_ok());
    }
    Result<std::optional<JobRecord>> j2 = store->jobs().get("j2");
    ASSERT_TRUE(j2.is_ok() && j2->has_value());
    JobRecord job = **j2;
    job.state = JobState::kFailed;
    job.error = Status(Code::kInput, "bad input", true);
    job.end_ms = 5;
    ASSERT_TRUE(store->jobs().write(job, std::nullopt, nullptr).is_ok());
  }
  auto store = open_job_store({.state_dir = dir.path()});
  ASSERT_TRUE(store.is_ok());
  auto j2 = store->jobs().get("j2");
  ASSERT_TRUE(j2.is_ok() && j2->has_value());
  EXPECT_EQ((**j2).state, JobState::kFailed);
  EXPECT_EQ((**j2).error.code(), Code::kInput);
  EXPECT_TRUE((**j2).error.retryable());
  EXPECT_EQ((**j2).labels.at("k"), "v");
  auto page = store->jobs().list(std::nullopt, 0, 2);
  ASSERT_TRUE(page.is_ok());
  ASSERT_EQ(page->size(), 2u);
  EXPECT_EQ((*page)[0].id, "j4");
  auto next = store->jobs().list(std::nullopt, (*page)[1].seq, 10);
  ASSERT_EQ(next->size(), 3u);
  EXPECT_EQ((*next)[0].id, "j2");
  EXPECT_EQ(*store->jobs().count_in_state(JobState::kQueued), 4);
  EXPECT_EQ(*store->jobs().purge_ended_before(10), 1);
  EXPECT_FALSE(store->jobs().get("j2")->has_value());
}

TEST(JobStore, RequestIdReturnsTheFirstJob) {
  TempDir dir;
  auto store = open_job_store({.state_dir = dir.path()});
  JobRecord first;
  first.id = "a";
  first.request_id = "req-1";
  ASSERT_TRUE(*store->jobs().insert(first));
  JobRecord again;
  again.id = "b";
  again.request_id = "req-1";
  Result<bool> inserted = store->jobs().insert(again);
  ASSERT_TRUE(inserted.is_ok());
  EXPECT_FALSE(*inserted);
  EXPECT_EQ(again.id, "a");
}

TEST(JobStore, MigratesAReleaseOneDatabaseAndReadsItsJobTyped) {
  TempDir dir;
  std::string path = dir.path() + "/jobs.sqlite3";
  {
    RawDb db(path);
    db.exec(kReleaseOneTable);
    db.exec(kReleaseOneRow);
    ASSERT_EQ(db.user_version(), 0);
  }
  for (int open = 0; open < 2; ++open) {  // the second open finds nothing left to migrate
    auto store = open_job_store({.state_dir = dir.path()});
    ASSERT_TRUE(store.is_ok()) << store.status().message();
    Result<std::optional<JobRecord>> found = store->jobs().get("old");
    ASSERT_TRUE(found.is_ok()) << found.status().message();
    ASSERT_TRUE(found->has_value());
    const JobRecord& job = **found;
    EXPECT_EQ(job.state, JobState::kSucceeded);
    EXPECT_EQ(job.labels.at("team"), "video");
    EXPECT_EQ(job.spec.input, "/media/in.mp4");
    EXPECT_EQ(job.spec.start_s, 10.0);
    EXPECT_EQ(job.spec.backend, BackendKind::kVaapi);
    ASSERT_EQ(job.spec.outputs.size(), 1u);
    EXPECT_EQ(job.spec.outputs[0].codec, VideoCodec::kHevc);
    EXPECT_EQ(job.spec.outputs[0].quality, 26);
    EXPECT_EQ(job.progress.input_duration_s, 10.0);
    ASSERT_TRUE(job.report.has_value());
    EXPECT_EQ(job.report->outputs.at(0).encoder, "hevc_vaapi");
    ASSERT_EQ(job.report->stages.size(), 2u);
    // The stage device stored as text comes back as its parts.
    EXPECT_EQ(job.report->stages[0].device.backend, BackendKind::kVaapi);
    EXPECT_EQ(job.report->stages[0].device.path, "/dev/dri/renderD128");
    EXPECT_EQ(job.report->stages[0].device.driver, "i915");
    EXPECT_EQ(job.report->stages[1].device.backend, BackendKind::kSoftware);
    ASSERT_TRUE(job.report->engines.has_value());
    EXPECT_EQ(job.report->engines->samples, 4);
  }
  EXPECT_EQ(RawDb(path).user_version(), job_store_schema_version());
}

TEST(JobStore, RefusesADatabaseNewerThanItKnows) {
  TempDir dir;
  std::string path = dir.path() + "/jobs.sqlite3";
  int future = job_store_schema_version() + 1;
  {
    RawDb db(path);
    db.exec(kReleaseOneTable);
    db.exec("PRAGMA user_version = " + std::to_string(future));
  }
  auto store = open_job_store({.state_dir = dir.path()});
  ASSERT_FALSE(store.is_ok());
  const std::string& message = store.status().message();
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("version " + std::to_string(future)), std::string::npos) << message;
  EXPECT_NE(message.find("(" + std::to_string(job_store_schema_version()) + ")"), std::string::npos)
      << message;
  EXPECT_EQ(RawDb(path).user_version(), future);  // left as it was
}

TEST(JobStore, ARowThatDoesNotReadIsAnErrorNamingTheJob) {
  TempDir dir;
  ASSERT_TRUE(open_job_store({.state_dir = dir.path()}).is_ok());  // the current schema
  RawDb(dir.path() + "/jobs.sqlite3")
      .exec(
          "INSERT INTO jobs (id, state, priority, labels, spec, create_ms, start_ms, end_ms, "
          "attempt, device, progress, report, error_code, error_message, error_retryable) VALUES "
          "('broken', 1, 0, '{}', '{\"outputs\": 5}', 0, 0, 0, 0, '', '{}', '', 'ok', '', 0)");
  auto store = open_job_store({.state_dir = dir.path()});
  ASSERT_TRUE(store.is_ok());
  Result<std::optional<JobRecord>> found = store->jobs().get("broken");
  ASSERT_FALSE(found.is_ok());
  EXPECT_NE(found.status().message().find("job broken"), std::string::npos)
      << found.status().message();
  EXPECT_NE(found.status().message().find("spec"), std::string::npos) << found.status().message();
  EXPECT_FALSE(store->jobs().list(JobState::kQueued, 0, 10).is_ok());
}

TEST(Scheduler, SlotsBoundPlacementUntilReleased) {
  Scheduler s({}, {{BackendKind::kSoftware, "", "software", 2, 0}});
  EXPECT_EQ(s.place({"a", 0, 1}), 0);
  EXPECT_EQ(s.place({"b", 0, 2}), 0);
  EXPECT_FALSE(s.place({"c", 0, 3}).has_value());  // both slots taken
  EXPECT_TRUE(s.claimable({"software"}).empty());  // so nothing is claimed
  s.release(0, "a");
  EXPECT_EQ(s.place({"c", 0, 3}), 0);
}

// The node's memory cap (memory_budget.h) bounds jobs at once across devices, below their slots;
// capacity (what ListNodes' free slots read) says so too.
TEST(Scheduler, TheNodeCapBoundsJobsAcrossDevicesBelowTheirSlots) {
  HwInventory inventory = tc::testing::inventory({tc::testing::intel_gpu("/dev/dri/renderD128")});
  Scheduler s(inventory, {{BackendKind::kSoftware, "", "software", 4, 0},
                          {BackendKind::kVaapi, "/dev/dri/renderD128", "vaapi", 4, 0}});
  s.set_node_cap(3);
  EXPECT_EQ(s.place({"a", 0, 1, BackendKind::kSoftware}), 0);
  EXPECT_EQ(s.place({"b", 0, 2, BackendKind::kVaapi}), 1);
  EXPECT_EQ(s.place({"c", 0, 3, BackendKind::kVaapi}), 1);
  EXPECT_FALSE(s.place({"d", 0, 4, BackendKind::kSoftware}).has_value());  // 3 running: the cap
  EXPECT_TRUE(s.claimable({"software", "vaapi"}).empty());
  for (const SchedDevice& d : s.devices_now()) EXPECT_EQ(d.load.capacity, 0) << d.name;
  s.release(1, "b");
  EXPECT_EQ(s.place({"d", 0, 4, BackendKind::kSoftware}), 0);
}

TEST(MemoryBudget, HoldsWhatTheLimitFitsAndRefusesWhereNotOneFits) {
  const int64_t gib = int64_t{1} << 30;
  EXPECT_EQ(*memory_job_cap(8192, 16 * gib), std::optional<int>(2));
  EXPECT_EQ(*memory_job_cap(8192, 20 * gib), std::optional<int>(2));  // rounded down
  EXPECT_EQ(*memory_job_cap(8192, std::nullopt), std::nullopt);       // no memory.max
  EXPECT_EQ(*memory_job_cap(0, 16 * gib), std::nullopt);              // no worker cap
  Result<std::optional<int>> none = memory_job_cap(8192, 4 * gib);
  ASSERT_FALSE(none.is_ok());
  EXPECT_EQ(none.status().field(), "worker_memory_mb");
  EXPECT_NE(none.status().message().find("memory.max 4096 MiB"), std::string::npos);
}

TEST(Scheduler, LeastLoadedDeviceOfTheBackend) {
  std::vector<SchedDevice> devices = {{BackendKind::kSoftware, "", "software", 1, 0},
                                      {BackendKind::kVaapi, "/dev/dri/renderD128", "a", 4, 0},
                                      {BackendKind::kVaapi, "/dev/dri/renderD129", "b", 4, 0}};
  Scheduler s(tc::testing::inventory({tc::testing::intel_gpu("/dev/dri/renderD128"),
                                      tc::testing::intel_gpu("/dev/dri/renderD129")}),
              devices);
  std::vector<int> picked;
  for (int i = 0; i < 4; ++i)
    picked.push_back(*s.place({"j" + std::to_string(i), 0, i, BackendKind::kVaapi}));
  EXPECT_EQ(picked, (std::vector<int>{1, 2, 1, 2}));
  EXPECT_EQ(s.place({"sw", 0, 9, BackendKind::kSoftware}), 0);
  EXPECT_EQ(default_slots(BackendKind::kSoftware, 2), 1);
  EXPECT_EQ(default_slots(BackendKind::kSoftware, 16), 8);
  EXPECT_EQ(default_slots(BackendKind::kVaapi, 2), 4);
}

// A node claims the jobs its free slots can run. A backend another live node offers is left to
// that node; one that no node offers takes a software slot (its worker then fails it with the
// planner's reason) rather than waiting for ever.
TEST(Scheduler, ClaimsWhatItsFreeSlotsRunAndLeavesOthersBackends) {
  HwInventory inventory = tc::testing::inventory({tc::testing::intel_gpu("/dev/dri/renderD128")});
  Scheduler s(inventory, {{BackendKind::kSoftware, "", "software", 1, 0},
                          {BackendKind::kVaapi, "/dev/dri/renderD128", "vaapi", 1, 0}});
  using Names = std::vector<std::string>;
  const std::set<std::string> cluster = {"software", "vaapi", "qsv", "vulkan", "cuda"};
  EXPECT_EQ(s.claimable(cluster), (Names{"auto", "software", "vaapi"}));
  std::set<std::string> no_vulkan = cluster;
  no_vulkan.erase("vulkan");  // the only node with vulkan is gone
  EXPECT_EQ(s.claimable(no_vulkan), (Names{"auto", "software", "vaapi", "vulkan"}));
  ASSERT_TRUE(s.place({"gpu", 0, 1, BackendKind::kVaapi}).has_value());
  EXPECT_EQ(s.claimable(cluster), (Names{"auto", "software"}));
  ASSERT_TRUE(s.place({"sw", 0, 2, BackendKind::kSoftware}).has_value());
  EXPECT_TRUE(s.claimable(no_vulkan).empty());
}

TEST(Scheduler, TheBackendsSettingKeepsOnlyThoseDevices) {
  HwInventory inventory = tc::testing::inventory({tc::testing::intel_gpu("/dev/dri/renderD128")});
  std::vector<SchedDevice> devices = devices_from_inventory(inventory, 0, 2);
  ASSERT_EQ(devices.size(), 2u);
  keep_backends({"software"}, inventory, devices);
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].backend, BackendKind::kSoftware);
  EXPECT_TRUE(inventory.devices.empty());  // so an auto job is planned in software too
  Scheduler s(inventory, devices);
  EXPECT_EQ(s.offered(), (std::set<std::string>{"software"}));
}

// The scheduler and the planner make one decision: an auto job goes where make_plan will run it.
TEST(Scheduler, AutoJobIsPlacedWhereThePlannerRunsIt) {
  HwDevice no_video_proc = tc::testing::intel_gpu("/dev/dri/renderD128");
  no_video_proc.can_scale = false;  // decodes and encodes, but no VAEntrypointVideoProc
  HwInventory inventory = tc::testing::inventory({no_video_proc});
  JobSpec spec = tc::testing::job({tc::testing::output("out.mp4", 640, 360)});
  spec.device = no_video_proc.path;  // as the daemon pins it for a worker on that device
  Result<Plan> plan = make_plan(spec, tc::testing::media(), inventory);
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  ASSERT_EQ(plan->backend, BackendKind::kSoftware);

  Scheduler s(inventory, devices_from_inventory(inventory, 0, 2));
  ASSERT_EQ(s.devices().size(), 2u);  // software and the GPU
  std::optional<int> placed = s.place({"auto", 0, 1, BackendKind::kAuto});
  ASSERT_TRUE(placed.has_value());
  EXPECT_EQ(s.devices()[*placed].backend, BackendKind::kSoftware);

  // A GPU that can scale takes auto jobs, and the planner agrees.
  HwInventory capable = tc::testing::inventory({tc::testing::intel_gpu("/dev/dri/renderD128")});
  Scheduler t(capable, devices_from_inventory(capable, 0, 2));
  placed = t.place({"auto", 0, 1, BackendKind::kAuto});
  ASSERT_TRUE(placed.has_value());
  EXPECT_EQ(t.devices()[*placed].backend, BackendKind::kVaapi);
  Result<Plan> gpu_plan = make_plan(spec, tc::testing::media(), capable);
  ASSERT_TRUE(gpu_plan.is_ok());
  EXPECT_EQ(gpu_plan->backend, BackendKind::kVaapi);
}

class Policy : public ::testing::Test {
 protected:
  void SetUp() override {
    root = fs::path(dir.path()) / "root";
    fs::create_directories(root / "sub");
    input = dir.file("root/in.mp4");
    dir.file("secret.mp4");
    policy.roots = *canonical_roots({root.string()});
    policy.max_outputs = 2;
  }
  JobSpec spec(const std::string& in, const std::string& out) {
    JobSpec s;
    s.input = in;
    OutputSpec o;
    o.path = out;
    s.outputs.push_back(o);
    return s;
  }
  ApiCode code(JobSpec s) { return apply_policy(s, policy).code(); }

  TempDir dir;
  fs::path root;
  std::string input;
  RequestPolicy policy;
};

TEST_F(Policy, ConfinesPathsToTheRoots) {
  std::string out = (root / "out.mp4").string();
  EXPECT_EQ(code(spec(input, out)), ApiCode::kOk);
  EXPECT_EQ(code(spec(dir.path() + "/secret.mp4", out)), ApiCode::kPermissionDenied);
  EXPECT_EQ(code(spec((root / "../secret.mp4").string(), out)), ApiCode::kPermissionDenied);
  EXPECT_EQ(code(spec(input, (root / "../out.mp4").string())), ApiCode::kPermissionDenied);
  fs::create_symlink(dir.path() + "/secret.mp4", root / "link.mp4");
  EXPECT_EQ(code(spec((root / "link.mp4").string(), out)), ApiCode::kPermissionDenied);
  fs::create_directory_symlink(dir.path(), root / "escape");
  EXPECT_EQ(code(spec(input, (root / "escape/out.mp4").string())), ApiCode::kPermissionDenied);
  EXPECT_EQ(code(spec((root / "missing.mp4").string(), out)), ApiCode::kInvalidArgument);
  EXPECT_EQ(code(spec("/elsewhere/missing.mp4", out)), ApiCode::kPermissionDenied);
  EXPECT_EQ(code(spec("in.mp4", out)), ApiCode::kInvalidArgument);
  EXPECT_EQ(code(spec("http://example.com/a.mp4", out)), ApiCode::kPermissionDenied);
  policy.protocols = {"http"};
  EXPECT_EQ(code(spec("http://example.com/a.mp4", out)), ApiCode::kOk);
}

TEST_F(Policy, CapsOutputsPixelsAndDuration) {
  std::string out = (root / "out.mp4").string();
  JobSpec none = spec(input, out);
  none.outputs.clear();
  EXPECT_EQ(code(none), ApiCode::kInvalidArgument);
  JobSpec many = spec(input, out);
  for (int i = 0; i < 2; ++i) many.outputs.push_back(many.outputs[0]);
  ApiStatus status = apply_policy(many, policy);
  EXPECT_EQ(status.code(), ApiCode::kInvalidArgument);
  EXPECT_NE(status.message().find("max_outputs"), std::string::npos);
  policy.max_pixels = 640 * 480;
  JobSpec big = spec(input, out);
  big.outputs[0].width = 1280;
  big.outputs[0].height = 720;
  EXPECT_EQ(code(big), ApiCode::kInvalidArgument);
  policy.max_duration_s = 10;
  JobSpec whole = spec(input, out);
  EXPECT_TRUE(apply_policy(whole, policy).is_ok());
  EXPECT_EQ(whole.duration_s, 10);
}

TEST(PixelCap, SourceAndDerivedOutputSizes) {
  JobSpec spec;
  spec.outputs.resize(2);
  spec.outputs[1].width = 640;  // height follows the source's aspect: 640x360 from 16:9
  EXPECT_TRUE(check_source_pixels(spec, 1280, 720, 1280 * 720).is_ok());
  Status source = check_source_pixels(spec, 3840, 2160, 1280 * 720);
  EXPECT_NE(source.message().find("max_pixels"), std::string::npos);
  EXPECT_NE(source.message().find("input"), std::string::npos);
  spec.outputs[1].width = 1920;
  Status output = check_source_pixels(spec, 1280, 720, 1280 * 720);
  EXPECT_NE(output.message().find("outputs[1]: 1920x1080"), std::string::npos) << output.message();
  EXPECT_TRUE(check_source_pixels(spec, 7680, 4320, 0).is_ok());
}

TEST(WorkerProtocol, LinesRoundTrip) {
  Progress p;
  p.frames_decoded = 42;
  p.input_duration_s = 12.5;
  p.speed = 2.5;
  Result<WorkerMessage> m = parse_worker_line(worker_line(p));
  ASSERT_TRUE(m.is_ok()) << m.status().message();
  EXPECT_EQ(m->kind, WorkerMessage::Kind::kProgress);
  EXPECT_EQ(m->progress, p);
  JobReport report;
  report.input = "in.mp4";
  report.outputs.push_back({"out.mp4", "libx264", "cpu", 640, 360, 30, 1000, 1.0, 8000});
  report.wall_s = 1.5;
  Result<WorkerMessage> r = parse_worker_line(worker_line(report));
  ASSERT_TRUE(r.is_ok()) << r.status().message();
  EXPECT_EQ(r->kind, WorkerMessage::Kind::kResult);
  EXPECT_EQ(r->report.input, "in.mp4");
  EXPECT_EQ(r->report.outputs, report.outputs);
  EXPECT_EQ(r->report.wall_s, 1.5);
  Result<WorkerMessage> e = parse_worker_line(worker_line(Status(Code::kDevice, "hang", true)));
  ASSERT_TRUE(e.is_ok());
  EXPECT_EQ(e->kind, WorkerMessage::Kind::kError);
  EXPECT_EQ(e->error.code(), Code::kDevice);
  EXPECT_EQ(e->error.message(), "hang");
  EXPECT_TRUE(e->error.retryable());
}

TEST(WorkerProtocol, MalformedLinesAreErrorsThatSayWhy) {
  for (const char* line :
       {"garbage", "[1]", R"({"progress": {}, "result": {}})", R"({"chatter": 1})",
        R"({"progress": {"fps": "fast"}})", R"({"result": {"outputs": 3}})",
        R"({"error": {"code": "ok"}})", R"({"error": "bad"})"}) {
    Result<WorkerMessage> m = parse_worker_line(line);
    ASSERT_FALSE(m.is_ok()) << line;
    EXPECT_EQ(m.status().code(), Code::kInternal) << line;
    EXPECT_NE(m.status().message().find(line), std::string::npos) << m.status().message();
  }
  Result<WorkerMessage> typed = parse_worker_line(R"({"progress": {"fps": "fast"}})");
  EXPECT_NE(typed.status().message().find("fps"), std::string::npos) << typed.status().message();
}

TEST(WorkerSupervisor, JudgesHowAWorkerEnded) {
  EXPECT_TRUE(judge_exit(0, true, {}).is_ok());
  int segv = 0;
  pid_t pid = fork();
  if (pid == 0) {
    signal(SIGSEGV, SIG_DFL);
    raise(SIGSEGV);
    _exit(0);
  }
  waitpid(pid, &segv, 0);
  Status crashed = judge_exit(segv, false, {});
  EXPECT_NE(crashed.message().find("SIGSEGV"), std::string::npos) << crashed.message();
  EXPECT_TRUE(crashed.retryable());  // nothing says the job is at fault: it runs again
  EXPECT_FALSE(judge_exit(3 << 8, false, Status(Code::kInput, "x")).retryable());
  EXPECT_EQ(judge_exit(3 << 8, false, Status(Code::kInput, "x")).code(), Code::kInput);
}

TEST(WorkerFaults, OnlyMatchingInputs) {
  EXPECT_EQ(fault_for(nullptr, "/a"), Fault::kNone);
  EXPECT_EQ(fault_for("crash", "/a"), Fault::kCrash);
  EXPECT_EQ(fault_for("stall:hang", "/x/hang.mp4"), Fault::kStall);
  EXPECT_EQ(fault_for("stall:hang", "/x/ok.mp4"), Fault::kNone);
  EXPECT_EQ(fault_for("crash-first:once", "/x/once.mp4"), Fault::kCrashFirst);
}

TEST(JobManager, RecoveryRequeuesOrFailsInterruptedJobsAndRemovesPartials) {
  TempDir dir;
  std::string out = dir.path() + "/out.mp4";
  // Each job's interrupted attempt left its own temp file.
  for (int attempt : {1, 3}) std::ofstream(partial_path(out, attempt)) << "half a file";
  JobSpec spec;
  spec.input = dir.file("in.mp4");
  spec.outputs.push_back(OutputSpec{});
  spec.outputs[0].path = out;
  {
    auto store = open_job_store({.state_dir = dir.path()});
    ASSERT_TRUE(store.is_ok());
    for (auto [id, attempt] : {std::pair{"again", 1}, std::pair{"spent", 3}}) {
      JobRecord job;
      job.id = id;
      job.state = JobState::kRunning;
      job.attempt = attempt;
      job.spec = spec;
      // Where and when the cut-off attempt ran, on a node that is gone.
      job.device = "vaapi /dev/dri/renderD128";
      job.node = "node-gone";
      job.start_ms = 1234;
      ASSERT_TRUE(store->jobs().insert(job).is_ok());
    }
    // Issue 36: jobs that ended failed or cancelled while their folder was read-only to the
    // worker, their temp files left behind: the next start removes them too.
    for (auto [id, state] :
         {std::pair{"failed", JobState::kFailed}, std::pair{"cancelled", JobState::kCancelled}}) {
      JobRecord job;
      job.id = id;
      job.state = state;
      job.attempt = 2;
      job.spec = spec;
      job.spec.outputs[0].path = dir.path() + "/" + id + ".mp4";
      std::ofstream(partial_path(job.spec.outputs[0].path, 2)) << "left by the worker";
      ASSERT_TRUE(store->jobs().insert(job).is_ok());
    }
  }
  auto store = open_job_store({.state_dir = dir.path()});
  ASSERT_TRUE(store.is_ok());
  ManagerOptions options;
  options.max_attempts = 3;
  options.policy.roots = {dir.path()};  // partial outputs are removed below the media roots only
  // No slots: recovery only, nothing starts.
  JobManager manager(options, std::move(*store),
                     Scheduler({}, {{BackendKind::kSoftware, "", "software", 0, 0}}));
  ASSERT_TRUE(manager.start().is_ok());
  JobRecord again, spent;
  ASSERT_TRUE(manager.get("again", again).is_ok());
  ASSERT_TRUE(manager.get("spent", spent).is_ok());
  EXPECT_EQ(again.state, JobState::kQueued);
  EXPECT_EQ(again.attempt, 1);  // the next start makes it 2
  // Re-queued as a job never started (issue 39): nothing of the dead attempt stays.
  EXPECT_EQ(again.device, "");
  EXPECT_EQ(again.node, "");
  EXPECT_EQ(again.start_ms, 0);
  EXPECT_EQ(spent.state, JobState::kFailed);
  EXPECT_NE(spent.error.message().find("max_attempts"), std::string::npos);
  EXPECT_FALSE(fs::exists(partial_path(out, 1)));
  EXPECT_FALSE(fs::exists(partial_path(out, 3)));
  EXPECT_FALSE(fs::exists(partial_path(dir.path() + "/failed.mp4", 2)));
  EXPECT_FALSE(fs::exists(partial_path(dir.path() + "/cancelled.mp4", 2)));
  // A queued job cancels at once; a finished one cannot be cancelled.
  JobRecord cancelled;
  ASSERT_TRUE(manager.cancel("again", cancelled).is_ok());
  EXPECT_EQ(cancelled.state, JobState::kCancelled);
  EXPECT_EQ(manager.cancel("spent", cancelled).code(), ApiCode::kFailedPrecondition);
  EXPECT_EQ(manager.cancel("nope", cancelled).code(), ApiCode::kNotFound);
  manager.shutdown(0);
  JobRecord refused;
  NewJob late;
  late.spec = spec;
  EXPECT_EQ(manager.create(late, refused).code(), ApiCode::kUnavailable);
}
