// One attempt's own log lines on their way to the store (store/job_logs.h): numbered as they
// arrive from its worker, held until the next flush (about once a second from the attempt's
// thread, and once at its end), so the job never waits on the store for a line. Between flushes
// the lines the store would drop anyway (past the head, older than the tail: model/job_log.h)
// are dropped here, so a worker logging a line a packet costs bounded memory and writes.
#pragma once

#include <chrono>
#include <deque>
#include <string>
#include <vector>

#include "service/daemon/model/job_log.h"
#include "service/daemon/store/job_logs.h"

namespace tc::daemon {

class AttemptLog {
 public:
  AttemptLog(JobLogs& store, std::string id, int attempt)
      : store_(store), id_(std::move(id)), attempt_(attempt) {}

  // `line` (level, time, text) as this attempt's next line.
  void add(JobLogLine line);
  // Writes what is held when a second has passed since the last write (or `now`: at once). A
  // store that fails loses the batch (said once in the daemon's log): the job goes on.
  void flush(bool now = false);

 private:
  JobLogs& store_;
  const std::string id_;
  const int attempt_;
  int64_t next_seq_ = 0;
  std::vector<JobLogLine> head_;  // held lines that may join the head (seq < kLogHeadLines)
  std::deque<JobLogLine> tail_;   // held lines after them, the newest kLogTailLines
  std::chrono::steady_clock::time_point last_flush_{};
  bool warned_ = false;
};

}  // namespace tc::daemon
