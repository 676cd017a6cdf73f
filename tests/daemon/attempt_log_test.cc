// Issue 41, per-job logs: an attempt's lines wait for the next flush in memory, numbered, and a
// worker that logs faster than the flushes costs at most the bound's lines (the store would drop
// the rest anyway: model/job_log.h).
#include "service/daemon/jobs/attempt_log.h"

#include <gtest/gtest.h>

namespace tc::daemon {
namespace {

// Keeps each append's batch instead of storing it.
class RecordingLogs final : public JobLogs {
 public:
  Status append_log(const std::string& id, int attempt,
                    const std::vector<JobLogLine>& lines) override {
    batches.push_back({id, attempt, lines});
    return {};
  }
  Result<JobLog> read_log(const std::string&, int) override { return JobLog{}; }

  struct Batch {
    std::string id;
    int attempt;
    std::vector<JobLogLine> lines;
  };
  std::vector<Batch> batches;
};

JobLogLine said(const std::string& text) {
  return {0, 0, 1733440000000, LogLevel::kWarning, text};
}

TEST(AttemptLog, LinesAreNumberedAndHeldUntilTheFlush) {
  RecordingLogs store;
  AttemptLog log(store, "j-1", 3);
  log.add(said("first"));
  log.add(said("second"));
  log.flush(/*now=*/true);
  log.flush(/*now=*/true);  // nothing held: nothing written
  log.add(said("third"));
  log.flush(/*now=*/true);
  ASSERT_EQ(store.batches.size(), 2u);
  EXPECT_EQ(store.batches[0].id, "j-1");
  EXPECT_EQ(store.batches[0].attempt, 3);
  ASSERT_EQ(store.batches[0].lines.size(), 2u);
  EXPECT_EQ(store.batches[0].lines[1].seq, 1);
  EXPECT_EQ(store.batches[0].lines[1].attempt, 3);
  EXPECT_EQ(store.batches[0].lines[1].text, "second");
  EXPECT_EQ(store.batches[1].lines.at(0).seq, 2);
}

TEST(AttemptLog, BetweenFlushesOnlyTheHeadAndTheNewestTailLinesAreHeld) {
  RecordingLogs store;
  AttemptLog log(store, "j-2", 1);
  for (int i = 0; i < 1200; ++i) log.add(said("line " + std::to_string(i)));
  log.flush(/*now=*/true);
  ASSERT_EQ(store.batches.size(), 1u);
  const std::vector<JobLogLine>& lines = store.batches[0].lines;
  ASSERT_EQ(lines.size(), 1000u);
  EXPECT_EQ(lines[499].seq, 499);
  EXPECT_EQ(lines[500].seq, 700);
  EXPECT_EQ(lines[999].text, "line 1199");
}

}  // namespace
}  // namespace tc::daemon
