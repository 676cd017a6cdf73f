// No part of the job manager holds a lock over a store call (issue 39): while one store call is
// held on a latch the test controls, a metrics scrape, GetJob and WatchJob of another job still
// complete. A real SQLite store sits under a wrapper whose chosen calls wait on the latch.
#include <gtest/gtest.h>

#include <condition_variable>
#include <future>
#include <mutex>

#include "service/daemon/jobs/job_manager.h"
#include "tests/support/media_tools.h"

using namespace tc;
using namespace tc::daemon;

namespace {

using tc::testing::TempDir;

// Holds the store calls it is armed for until released.
class Latch {
 public:
  void arm(std::string call, std::string job = "") {
    std::lock_guard lock(mutex_);
    call_ = std::move(call);
    job_ = std::move(job);
  }
  void pass(const std::string& call, const std::string& job = "") {
    std::unique_lock lock(mutex_);
    if (call != call_ || (!job_.empty() && job != job_)) return;
    held_ += 1;
    changed_.notify_all();
    changed_.wait(lock, [this] { return open_; });
  }
  bool wait_held() {  // a generous bound: only a broken test waits it out
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(60), [this] { return held_ > 0; });
  }
  void open() {
    std::lock_guard lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::string call_, job_;
  int held_ = 0;
  bool open_ = false;
};

// A real SQLite store's queue whose chosen calls pass the latch first.
class LatchedQueue : public JobQueue {
 public:
  LatchedQueue(JobQueue& inner, Latch& latch) : inner_(inner), latch_(latch) {}
  Result<bool> insert(JobRecord& job) override { return inner_.insert(job); }
  Result<bool> insert_notifying(JobRecord& job, const Notification& notice) override {
    return inner_.insert_notifying(job, notice);
  }
  Result<std::optional<JobRecord>> get(const std::string& id) override {
    latch_.pass("get", id);
    return inner_.get(id);
  }
  Result<std::optional<JobRecord>> find_by_request_id(const std::optional<std::string>& tenant,
                                                      const std::string& id) override {
    return inner_.find_by_request_id(tenant, id);
  }
  Result<bool> write(const JobRecord& job, const std::optional<RowState>& expected,
                     const Notification* notice) override {
    latch_.pass("write", job.id);
    return inner_.write(job, expected, notice);
  }
  Result<std::vector<JobRecord>> list(std::optional<JobState> state, int64_t before, int limit,
                                      const std::optional<std::string>& tenant) override {
    return inner_.list(state, before, limit, tenant);
  }
  Result<int> count_in_state(JobState state) override {
    latch_.pass("count");
    return inner_.count_in_state(state);
  }
  Result<TenantLoad> tenant_load(const std::string& tenant) override {
    return inner_.tenant_load(tenant);
  }
  Result<int> purge_ended_before(int64_t end_ms) override {
    return inner_.purge_ended_before(end_ms);
  }
  Result<std::optional<JobRecord>> claim(const ClaimRequest&, const TakeJob&) override {
    latch_.pass("claim");  // then nothing to claim: no worker starts
    return std::optional<JobRecord>{};
  }
  Result<CancelAnswer> request_cancel(const std::string& id) override {
    return inner_.request_cancel(id);
  }

 private:
  JobQueue& inner_;
  Latch& latch_;
};

class Snapshots : public JobWatcher {
 public:
  void on_event(EventKind kind, const JobRecord&) override {
    if (kind == EventKind::kSnapshot) got += 1;
  }
  std::atomic<int> got{0};
};

// A role of an engine the rig keeps (an aliasing pointer that owns nothing).
template <typename Role>
std::shared_ptr<Role> borrowed(Role& role) {
  return std::shared_ptr<Role>(std::shared_ptr<Role>(), &role);
}

// A manager over a latched queue holding the queued jobs "a" and "b"; `slots` 0: none runs.
struct Rig {
  TempDir dir;
  Latch latch;
  JobStore engine;
  std::unique_ptr<JobManager> manager;

  explicit Rig(int slots) : engine(*open_job_store({.state_dir = dir.path()})) {
    for (const char* id : {"a", "b"}) {
      JobRecord job;
      job.id = id;
      job.spec.input = dir.file("in.mp4");
      EXPECT_TRUE(engine.jobs().insert(job).is_ok());
    }
    auto queue = std::make_shared<LatchedQueue>(engine.jobs(), latch);
    JobStore store(queue, borrowed(engine.outbox()), borrowed(engine.nodes()),
                   borrowed(engine.leases()), borrowed(engine.logs()), borrowed(engine.tenants()),
                   false);
    manager = std::make_unique<JobManager>(
        ManagerOptions{}, store,
        Scheduler({}, {{BackendKind::kSoftware, "", "software", slots, 0}}));
  }
};

// What must not wait on the held store call: true when each is done before the latch opens.
// The latch opens either way, so that a failing test ends.
bool others_complete(JobManager& manager, Latch& latch, bool scrape) {
  auto others = std::async(std::launch::async, [&manager, scrape] {
    if (scrape) manager.node_snapshot();
    JobRecord b;
    EXPECT_TRUE(manager.get("b", b).is_ok());
    EXPECT_EQ(b.state, JobState::kQueued);
    auto watcher = std::make_shared<Snapshots>();
    EXPECT_TRUE(manager.watch("b", watcher).is_ok());
    EXPECT_EQ(watcher->got.load(), 1);
    manager.unwatch("b", watcher.get());
  });
  bool done = others.wait_for(std::chrono::seconds(60)) == std::future_status::ready;
  latch.open();
  others.get();
  return done;
}

}  // namespace

TEST(JobLocks, AStoreReadOfOneJobHoldsUpNoOtherCall) {
  Rig rig(0);
  ASSERT_TRUE(rig.manager->start().is_ok());
  rig.latch.arm("get", "a");
  auto held = std::async(std::launch::async, [&] {
    JobRecord a;
    return rig.manager->get("a", a).is_ok();
  });
  ASSERT_TRUE(rig.latch.wait_held());
  EXPECT_TRUE(others_complete(*rig.manager, rig.latch, true)) << "waited on another job's read";
  EXPECT_TRUE(held.get());
}

TEST(JobLocks, AMetricsScrapeWaitingOnTheStoreHoldsUpNoRpc) {
  Rig rig(0);
  ASSERT_TRUE(rig.manager->start().is_ok());
  rig.latch.arm("count");
  auto scrape = std::async(std::launch::async, [&] { rig.manager->node_snapshot(); });
  ASSERT_TRUE(rig.latch.wait_held());
  EXPECT_TRUE(others_complete(*rig.manager, rig.latch, false)) << "waited on the scrape's count";
  scrape.get();
}

TEST(JobLocks, AClaimWaitingOnTheStoreHoldsUpNoScrapeOrRpc) {
  Rig rig(1);
  rig.latch.arm("claim");
  ASSERT_TRUE(rig.manager->start().is_ok());
  ASSERT_TRUE(rig.latch.wait_held());  // the dispatcher's claim, on its own thread
  EXPECT_TRUE(others_complete(*rig.manager, rig.latch, true)) << "waited on the claim";
  rig.manager->shutdown(0);
}
