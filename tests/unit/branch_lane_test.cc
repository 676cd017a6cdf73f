// BranchLane: tasks run in order on the lane's thread, a failure stops the lane, and the lane
// accounts for its thread's time (the report's `threads`).
#include "pipeline/exec/branch_lane.h"

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>

#include <thread>
#include <vector>

namespace tc {
namespace {

TEST(BranchLane, RunsTasksInOrderOnItsThread) {
  BranchLane lane(2, true, "tc-test");
  std::vector<int> ran;
  std::thread::id poster = std::this_thread::get_id();
  bool elsewhere = true;
  for (int k = 0; k < 20; ++k) {
    ASSERT_TRUE(lane.post([&, k] {
                      ran.push_back(k);
                      elsewhere = elsewhere && std::this_thread::get_id() != poster;
                      return Status::ok();
                    })
                    .is_ok());
  }
  ASSERT_TRUE(lane.drain().is_ok());
  ASSERT_EQ(ran.size(), 20u);
  for (int k = 0; k < 20; ++k) EXPECT_EQ(ran[k], k);
  EXPECT_TRUE(elsewhere);
  EXPECT_GT(lane.busy_ns(), 0);  // twenty tasks took some time
}

TEST(BranchLane, AFailureStopsTheLaneAndIsReturned) {
  BranchLane lane(4, true);
  int ran = 0;
  ASSERT_TRUE(lane.post([] { return Status(Code::kOutput, "disk full"); }).is_ok());
  Status drained = lane.drain();
  EXPECT_EQ(drained.code(), Code::kOutput);
  Status posted = lane.post([&] {
    ++ran;
    return Status::ok();
  });
  EXPECT_EQ(posted.code(), Code::kOutput);
  EXPECT_EQ(ran, 0);
}

TEST(BranchLane, ASerialLaneRunsOnTheCallerAndCountsNothing) {
  BranchLane lane(1, false);
  std::thread::id runner;
  ASSERT_TRUE(lane.post([&] {
                    runner = std::this_thread::get_id();
                    return Status::ok();
                  })
                  .is_ok());
  EXPECT_EQ(runner, std::this_thread::get_id());
  EXPECT_EQ(lane.busy_ns(), 0);
  EXPECT_EQ(lane.blocked_ns(), 0);
}

// An output's lane runs nicer than the thread that feeds it, and so do the threads its tasks
// start (an encoder's frame threads).
TEST(BranchLane, ANiceLaneAndTheThreadsItStartsRunNicer) {
  errno = 0;
  int mine = getpriority(PRIO_PROCESS, id_t(gettid()));
  ASSERT_EQ(errno, 0);
  if (mine + 5 > 19) GTEST_SKIP() << "this thread is already at nice " << mine;
  BranchLane lane(2, true, "tc-test", 5);
  int on_lane = -100, started = -100;
  ASSERT_TRUE(
      lane.post([&] {
            on_lane = getpriority(PRIO_PROCESS, id_t(gettid()));
            std::thread([&] { started = getpriority(PRIO_PROCESS, id_t(gettid())); }).join();
            return Status::ok();
          })
          .is_ok());
  ASSERT_TRUE(lane.drain().is_ok());
  EXPECT_EQ(on_lane, mine + 5);
  EXPECT_EQ(started, mine + 5);
  EXPECT_EQ(getpriority(PRIO_PROCESS, id_t(gettid())), mine);  // the poster is left as it was
}

}  // namespace
}  // namespace tc
