// A job's state changes (model/job_transitions.h), each on a record that carries every field a
// previous attempt could have left: the fields after it, literally.
#include <gtest/gtest.h>

#include "service/daemon/model/job_transitions.h"

using namespace tc;
using namespace tc::daemon;

namespace {

// A job whose second attempt ran on a GPU of node-a and got somewhere.
JobRecord ran_twice() {
  JobRecord job;
  job.id = "j";
  job.state = JobState::kRunning;
  job.create_ms = 1000;
  job.start_ms = 2000;
  job.attempt = 2;
  job.device = "vaapi /dev/dri/renderD128";
  job.node = "node-a";
  job.progress.frames_decoded = 240;
  job.engines.samples = 3;
  job.spec.input = "/media/in.mp4";
  return job;
}

}  // namespace

TEST(JobTransitions, StartingAnAttemptKeepsNothingOfTheLastOne) {
  JobRecord job = ran_twice();
  job.state = JobState::kQueued;
  job.end_ms = 2500;
  job.error = Status(Code::kInternal, "old");
  job.report = JobReport{};
  start_attempt(job, "software", "node-b", 3000);
  EXPECT_EQ(job.state, JobState::kRunning);
  EXPECT_EQ(job.attempt, 3);
  EXPECT_EQ(job.start_ms, 3000);
  EXPECT_EQ(job.end_ms, 0);
  EXPECT_EQ(job.device, "software");
  EXPECT_EQ(job.node, "node-b");
  EXPECT_EQ(job.progress.frames_decoded, 0);
  EXPECT_EQ(job.engines.samples, 0);
  EXPECT_FALSE(job.report.has_value());
  EXPECT_TRUE(job.error.is_ok());
  EXPECT_EQ(job.create_ms, 1000);  // admission's fields stay
  EXPECT_EQ(job.spec.input, "/media/in.mp4");
}

TEST(JobTransitions, ARequeuedOrphanShowsNoDeviceNodeOrStartAndKeepsItsAttempt) {
  JobRecord job = ran_twice();
  requeue(job, AttemptUse::kSpent, {AttemptOutcome::kLost, {}, 2500});
  EXPECT_EQ(job.state, JobState::kQueued);
  EXPECT_EQ(job.attempt, 2);  // the next start is attempt 3
  EXPECT_EQ(job.start_ms, 0);
  EXPECT_EQ(job.end_ms, 0);
  EXPECT_EQ(job.device, "");
  EXPECT_EQ(job.node, "");
  EXPECT_EQ(job.progress.frames_decoded, 0);
  EXPECT_EQ(job.engines.samples, 0);
  EXPECT_EQ(job.create_ms, 1000);
}

TEST(JobTransitions, AJobRequeuedAtShutdownGivesItsAttemptBack) {
  JobRecord job = ran_twice();
  requeue(job, AttemptUse::kGivenBack, {AttemptOutcome::kInterrupted, {}, 2500});
  EXPECT_EQ(job.state, JobState::kQueued);
  EXPECT_EQ(job.attempt, 1);  // the next start is attempt 2 again
  EXPECT_EQ(job.start_ms, 0);
  EXPECT_EQ(job.device, "");
  EXPECT_EQ(job.node, "");
  EXPECT_EQ(job.progress.frames_decoded, 0);
}

TEST(JobTransitions, FinishingKeepsWhereAndHowFarItRan) {
  JobRecord failed = ran_twice();
  finish(failed, JobState::kFailed, Status(Code::kInput, "no video"), std::nullopt, 9000);
  EXPECT_EQ(failed.state, JobState::kFailed);
  EXPECT_EQ(failed.end_ms, 9000);
  EXPECT_EQ(failed.error.message(), "no video");
  EXPECT_FALSE(failed.report.has_value());
  EXPECT_EQ(failed.attempt, 2);
  EXPECT_EQ(failed.start_ms, 2000);
  EXPECT_EQ(failed.device, "vaapi /dev/dri/renderD128");
  EXPECT_EQ(failed.node, "node-a");
  EXPECT_EQ(failed.progress.frames_decoded, 240);
  EXPECT_EQ(failed.engines.samples, 0);  // live engines describe a running worker only

  JobRecord done = ran_twice();
  JobReport report;
  report.frames_decoded = 240;
  finish(done, JobState::kSucceeded, {}, report, 9000);
  EXPECT_EQ(done.state, JobState::kSucceeded);
  EXPECT_TRUE(done.error.is_ok());
  ASSERT_TRUE(done.report.has_value());
  EXPECT_EQ(done.report->frames_decoded, 240);
}

// The history (attempt_record.h): a start adds its attempt, an end records how it ended; a record
// read without its history (a claim's, an orphan scan's) gets its running attempt's row from its
// own fields, so a takeover still says which node's attempt was lost.
TEST(JobTransitions, EachAttemptIsARowOfTheHistoryWithItsOutcome) {
  JobRecord job = ran_twice();  // attempt 2 on node-a, its history not read
  requeue(job, AttemptUse::kSpent, {AttemptOutcome::kLost, Status(Code::kInternal, "gone"), 2500},
          10000);
  ASSERT_EQ(job.attempts.size(), 1u);
  EXPECT_EQ(job.attempts[0].number, 2);
  EXPECT_EQ(job.attempts[0].node, "node-a");
  EXPECT_EQ(job.attempts[0].device, "vaapi /dev/dri/renderD128");
  EXPECT_EQ(job.attempts[0].start_ms, 2000);
  EXPECT_EQ(job.attempts[0].end_ms, 2500);
  EXPECT_EQ(job.attempts[0].outcome, AttemptOutcome::kLost);
  EXPECT_EQ(job.attempts[0].error.message(), "gone");
  EXPECT_EQ(job.retry_delay_ms, 10000);

  start_attempt(job, "software", "node-b", 3000);
  EXPECT_EQ(job.retry_delay_ms, 0);
  finish(job, JobState::kFailed, Status(Code::kInput, "no video"), std::nullopt, 4000);
  ASSERT_EQ(job.attempts.size(), 2u);
  EXPECT_EQ(job.attempts[0].outcome, AttemptOutcome::kLost);
  EXPECT_EQ(job.attempts[1].number, 3);
  EXPECT_EQ(job.attempts[1].node, "node-b");
  EXPECT_EQ(job.attempts[1].device, "software");
  EXPECT_EQ(job.attempts[1].start_ms, 3000);
  EXPECT_EQ(job.attempts[1].end_ms, 4000);
  EXPECT_EQ(job.attempts[1].outcome, AttemptOutcome::kFailed);
  EXPECT_EQ(job.attempts[1].error.code(), Code::kInput);
}

TEST(JobTransitions, AnAttemptGivenBackAtShutdownIsStartedAgainUnderItsNumber) {
  JobRecord job = ran_twice();
  requeue(job, AttemptUse::kGivenBack, {AttemptOutcome::kInterrupted, {}, 2500});
  ASSERT_EQ(job.attempts.size(), 1u);
  EXPECT_EQ(job.attempts[0].outcome, AttemptOutcome::kInterrupted);
  start_attempt(job, "software", "node-a", 3000);
  ASSERT_EQ(job.attempts.size(), 1u);
  EXPECT_EQ(job.attempts[0].number, 2);
  EXPECT_EQ(job.attempts[0].outcome, AttemptOutcome::kRunning);
  EXPECT_EQ(job.attempts[0].start_ms, 3000);
}

TEST(JobTransitions, CancellingAQueuedJobEndsNoAttempt) {
  JobRecord job;
  job.attempt = 1;
  job.attempts.push_back({1, "node-a", "software", 100, 200, AttemptOutcome::kCrashed, {}});
  finish(job, JobState::kCancelled, Status(Code::kCancelled, "asked"), std::nullopt, 300);
  ASSERT_EQ(job.attempts.size(), 1u);
  EXPECT_EQ(job.attempts[0].outcome, AttemptOutcome::kCrashed);
  EXPECT_EQ(job.attempts[0].end_ms, 200);
}
