// The durable job table, as the job manager uses it: one interface, two engines. SQLite
// (sqlite_job_store.h) is the embedded default in the state directory; PostgreSQL
// (pg_job_store.h) is the store several daemons share. Every state change is written before it
// is announced, so a daemon killed at any point restarts from what clients were told.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/core/status.h"
#include "service/daemon/job_record.h"
#include "service/daemon/node_record.h"

namespace tc::daemon {

class JobStore {
 public:
  // The embedded engine: SQLite in `state_dir`, created when missing. kInternal names the file
  // on failure.
  static Result<std::unique_ptr<JobStore>> open(const std::string& state_dir);
  virtual ~JobStore() = default;

  // Adds `job` (its seq is set). When a job with the same non-empty request_id exists, adds
  // nothing, puts that job in `job` and returns false.
  virtual Result<bool> insert(JobRecord& job) = 0;
  virtual Result<std::optional<JobRecord>> get(const std::string& id) = 0;
  virtual Result<std::optional<JobRecord>> find_by_request_id(const std::string& request_id) = 0;
  // Writes every field of an existing job.
  virtual Status update(const JobRecord& job) = 0;
  // Newest first: jobs with seq < before_seq (0 = from the newest), of `state` when set.
  virtual Result<std::vector<JobRecord>> list(std::optional<JobState> state, int64_t before_seq,
                                              int limit) = 0;
  // Oldest first: every job in `state` (start-up recovery).
  virtual Result<std::vector<JobRecord>> all_in_state(JobState state) = 0;
  virtual Result<int> count_in_state(JobState state) = 0;
  // Deletes finished jobs that ended before `end_ms`; returns how many.
  virtual Result<int> purge_ended_before(int64_t end_ms) = 0;

  // Writes this daemon's node row (its heartbeat; heartbeat_ms is the store's clock).
  virtual Status heartbeat(const NodeRecord& node) = 0;
  // Every node sharing the store, by id: with SQLite, the one that last beat.
  virtual Result<std::vector<NodeRecord>> nodes() = 0;
};

// Where the jobs live, as the settings say: `url` empty = SQLite in `state_dir`; a
// postgresql:// (or postgres://) URL = that database, with the password from the URL,
// PGPASSFILE, or the first line of `password_file`.
struct StoreLocation {
  std::string url;
  std::string password_file;
  std::string state_dir;
};

// kInvalidArgument for a URL of another scheme; the engine's own errors otherwise. No message
// carries the password.
Result<std::unique_ptr<JobStore>> open_job_store(const StoreLocation& where);

}  // namespace tc::daemon
