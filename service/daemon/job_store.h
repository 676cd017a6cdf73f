// The durable job table: SQLite in WAL mode in the state directory. Every state change is
// written before it is announced, so a daemon killed at any point restarts from what clients
// were told. One connection, serialised by a mutex: the daemon writes a few rows a second.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/core/status.h"
#include "service/daemon/job_record.h"

struct sqlite3;

namespace tc::daemon {

class JobStore {
 public:
  // Creates the directory's database when missing. kInternal names the file on failure.
  static Result<std::unique_ptr<JobStore>> open(const std::string& state_dir);
  ~JobStore();
  JobStore(const JobStore&) = delete;
  JobStore& operator=(const JobStore&) = delete;

  // Adds `job` (its seq is set). When a job with the same non-empty request_id exists, adds
  // nothing, puts that job in `job` and returns false.
  Result<bool> insert(JobRecord& job);
  Result<std::optional<JobRecord>> get(const std::string& id);
  Result<std::optional<JobRecord>> find_by_request_id(const std::string& request_id);
  // Writes every field of an existing job.
  Status update(const JobRecord& job);
  // Newest first: jobs with seq < before_seq (0 = from the newest), of `state` when set.
  Result<std::vector<JobRecord>> list(std::optional<JobState> state, int64_t before_seq, int limit);
  // Oldest first: every job in `state` (start-up recovery).
  Result<std::vector<JobRecord>> all_in_state(JobState state);
  Result<int> count_in_state(JobState state);
  // Deletes finished jobs that ended before `end_ms`; returns how many.
  Result<int> purge_ended_before(int64_t end_ms);

 private:
  explicit JobStore(sqlite3* db) : db_(db) {}
  Status exec(const char* sql);

  std::mutex mutex_;
  sqlite3* db_;
};

}  // namespace tc::daemon
