#include "service/daemon/store/sqlite_job_store.h"

#include <sqlite3.h>

#include <unistd.h>

#include <filesystem>

#include "service/daemon/store/attempt_columns.h"
#include "service/daemon/store/job_columns.h"
#include "service/daemon/store/job_log_sql.h"
#include "service/daemon/store/job_store_schema.h"
#include "service/daemon/store/lease_sql.h"
#include "service/daemon/store/outbox_sql.h"
#include "service/daemon/store/quota_sql.h"
#include "service/daemon/store/sqlite_statement.h"

namespace tc::daemon {
namespace {

constexpr const char* kColumns = kJobColumnList;

Status db_error(sqlite3* db, const std::string& what) {
  return {Code::kInternal, "job store: " + what + ": " + sqlite3_errmsg(db), true};
}

Result<JobRecord> row_to_job(Statement& s) {
  JobColumns row;
  row.seq = s.int_at(0);
  row.id = s.text_at(1);
  row.request_id = s.text_at(2);
  row.state = s.int_at(3);
  row.priority = s.int_at(4);
  row.labels = s.text_at(5);
  row.spec = s.text_at(6);
  row.create_ms = s.int_at(7);
  row.start_ms = s.int_at(8);
  row.end_ms = s.int_at(9);
  row.attempt = s.int_at(10);
  row.device = s.text_at(11);
  row.progress = s.text_at(12);
  row.report = s.text_at(13);
  row.error_code = s.text_at(14);
  row.error_message = s.text_at(15);
  row.error_retryable = s.int_at(16);
  row.webhook_url = s.text_at(17);
  row.node = s.text_at(18);
  row.cancel_requested = s.int_at(21);
  row.not_before_ms = s.int_at(22);
  row.tenant_id = s.text_at(23);
  return from_columns(row);
}

// Binds the columns after seq and id, from index `first`, in kJobColumnList order.
void bind_fields(Statement& s, int first, const JobRecord& job) {
  JobColumns row = to_columns(job);
  if (row.request_id.empty())
    s.bind_null(first);
  else
    s.bind(first, row.request_id);
  s.bind(first + 1, row.state);
  s.bind(first + 2, row.priority);
  s.bind(first + 3, row.labels);
  s.bind(first + 4, row.spec);
  s.bind(first + 5, row.create_ms);
  s.bind(first + 6, row.start_ms);
  s.bind(first + 7, row.end_ms);
  s.bind(first + 8, row.attempt);
  s.bind(first + 9, row.device);
  s.bind(first + 10, row.progress);
  s.bind(first + 11, row.report);
  s.bind(first + 12, row.error_code);
  s.bind(first + 13, row.error_message);
  s.bind(first + 14, row.error_retryable);
  s.bind(first + 15, row.webhook_url);
  s.bind(first + 16, row.node);
  s.bind(first + 17, row.backend);
  s.bind(first + 18, row.device_path);
}

Result<std::vector<JobRecord>> collect(sqlite3* db, Statement& s) {
  std::vector<JobRecord> jobs;
  int rc;
  while ((rc = s.step()) == SQLITE_ROW) {
    TC_ASSIGN_OR_RETURN(JobRecord job, row_to_job(s));
    jobs.push_back(std::move(job));
  }
  if (rc != SQLITE_DONE) return db_error(db, "read");
  return jobs;
}

// The recovery path both start-up refusals name: the daemon starts afresh without the file.
std::string move_aside_hint(const std::string& path) {
  return ": stop transcoded, move it aside with its -wal and -shm files (mv " + path + " " + path +
         ".damaged) and start again: the daemon starts with an empty job list (see README, "
         "The job database)";
}

Status not_writable(const std::string& path) {
  return {Code::kOutput, "job store " + path +
                             " is not writable (a read-only file system, or not this user's to "
                             "write): give transcoded write access to it and its directory, or "
                             "set another state_dir"};
}

// A damaged file, or one this process cannot write, would still open: every later CreateJob and
// ListJobs would fail INTERNAL on a daemon that reports SERVING. Refuse it at start instead.
// Writability first: a healthy database on a read-only file system is not damaged.
Status check_usable(sqlite3* db, const std::string& path) {
  if (sqlite3_db_readonly(db, "main") == 1) return not_writable(path);
  Statement check(db, "PRAGMA quick_check");
  int rc = check.ok() ? check.step() : sqlite3_errcode(db);
  if (rc == SQLITE_BUSY)  // the exclusive lock (open()) of another process
    return {Code::kOutput, "job store " + path +
                               " is in use by another process (a second transcoded on this "
                               "state_dir?): stop it, or set another state_dir"};
  std::string verdict = rc == SQLITE_ROW ? check.text_at(0) : sqlite3_errmsg(db);
  if (verdict != "ok")
    return {Code::kInput,
            "job store " + path + " is damaged (" + verdict + ")" + move_aside_hint(path)};
  return {};
}

}  // namespace

Result<std::unique_ptr<SqliteJobStore>> SqliteJobStore::open(const std::string& state_dir) {
  std::error_code ec;
  std::filesystem::create_directories(state_dir, ec);
  if (ec)
    return Status(Code::kInternal, "state_dir: cannot create " + state_dir + ": " + ec.message());
  std::string path = state_dir + "/jobs.sqlite3";
  sqlite3* db = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    bool cannot_create = ::access(state_dir.c_str(), W_OK) != 0;
    Status status = cannot_create ? not_writable(path) : db_error(db, "open " + path);
    sqlite3_close(db);
    return status;
  }
  std::unique_ptr<SqliteJobStore> store(new SqliteJobStore(db));
  // A statement waits at most 5 s for the file's lock, then fails (docs/cluster.md, Time limits).
  sqlite3_busy_timeout(db, 5000);
  // Before the first access, so that it holds from the start (sqlite.org/wal.html, "Use of WAL
  // without shared-memory"): in EXCLUSIVE locking mode WAL keeps its index in heap memory, and
  // no -shm file is ever mapped. A mapped file on a file system that fills up or fails raises
  // SIGBUS in the daemon (issue 36); without the map the same failure is an SQLITE_FULL or
  // SQLITE_IOERR the caller gets as a Status. No mmap of the database file either. The lock is
  // held while the daemon runs: only it opens the file.
  TC_RETURN_IF_ERROR(store->exec("PRAGMA locking_mode=EXCLUSIVE; PRAGMA mmap_size=0;"));
  TC_RETURN_IF_ERROR(check_usable(db, path));
  // WAL: readers never block the writer; NORMAL sync is durable across a process kill (the
  // case that matters here), only an OS crash may lose the last transactions.
  TC_RETURN_IF_ERROR(store->exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"));
  TC_RETURN_IF_ERROR(migrate_schema(db, path));
  return store;
}

SqliteJobStore::~SqliteJobStore() {
  sqlite3_close(db_);
}

Status SqliteJobStore::exec(const char* sql) {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &error) == SQLITE_OK) return {};
  Status status(Code::kInternal, std::string("job store: ") + (error ? error : "exec failed"));
  sqlite3_free(error);
  return status;
}

Result<bool> SqliteJobStore::insert(JobRecord& job) {
  std::lock_guard lock(mutex_);
  return insert_locked(job);
}

Result<bool> SqliteJobStore::insert_notifying(JobRecord& job, const Notification& notice) {
  std::lock_guard lock(mutex_);
  bool inserted = false;
  TC_RETURN_IF_ERROR(in_transaction([&]() -> Status {
    TC_ASSIGN_OR_RETURN(inserted, insert_locked(job));
    return inserted ? enqueue_locked(notice) : Status();
  }));
  return inserted;
}

Result<bool> SqliteJobStore::insert_locked(JobRecord& job) {
  if (!job.request_id.empty()) {
    Statement find(db_, std::string("SELECT ") + kColumns +
                            " FROM jobs WHERE tenant_id = ? AND request_id = ?");
    find.bind(1, job.tenant);
    find.bind(2, job.request_id);
    if (find.step() == SQLITE_ROW) {
      TC_ASSIGN_OR_RETURN(job, row_to_job(find));
      return false;
    }
  }
  // Counted and inserted under mutex_, by the database's one writer: no other insert between.
  TC_ASSIGN_OR_RETURN(TenantLoad load, tenant_load_locked(job.tenant));
  TC_RETURN_IF_ERROR(admission_refusal(job.tenant, load));
  Statement s(
      db_,
      std::string("INSERT INTO jobs (") + kColumns +
          ") VALUES (NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?)");
  if (!s.ok()) return db_error(db_, "prepare insert");
  s.bind(1, job.id);
  bind_fields(s, 2, job);
  s.bind(21, job.tenant);
  if (s.step() != SQLITE_DONE) return db_error(db_, "insert job " + job.id);
  job.seq = sqlite3_last_insert_rowid(db_);
  TC_RETURN_IF_ERROR(save_attempts_locked(job));
  return true;
}

Result<std::optional<JobRecord>> SqliteJobStore::find_one(
    const char* column, const std::string& value, const std::optional<std::string>& tenant) {
  std::lock_guard lock(mutex_);
  Statement s(db_, std::string("SELECT ") + kColumns + " FROM jobs WHERE " + column + " = ?" +
                       (tenant ? " AND tenant_id = ?" : ""));
  if (!s.ok()) return db_error(db_, std::string("prepare find by ") + column);
  s.bind(1, value);
  if (tenant) s.bind(2, *tenant);
  int rc = s.step();
  if (rc == SQLITE_DONE) return std::optional<JobRecord>();
  if (rc != SQLITE_ROW) return db_error(db_, std::string("find ") + column + " " + value);
  TC_ASSIGN_OR_RETURN(JobRecord job, row_to_job(s));
  TC_ASSIGN_OR_RETURN(job.attempts, attempts_locked(job.id));
  return std::optional<JobRecord>(std::move(job));
}

Result<std::optional<JobRecord>> SqliteJobStore::get(const std::string& id) {
  return find_one("id", id, std::nullopt);
}

Result<std::optional<JobRecord>> SqliteJobStore::find_by_request_id(
    const std::optional<std::string>& tenant, const std::string& request_id) {
  return find_one("request_id", request_id, tenant);
}

Result<bool> SqliteJobStore::write(const JobRecord& job, const std::optional<RowState>& expected,
                                   const Notification* notice) {
  std::lock_guard lock(mutex_);
  if (!notice && job.attempts.empty()) return update_locked(job, expected);
  bool written = false;
  TC_RETURN_IF_ERROR(in_transaction([&]() -> Status {
    TC_ASSIGN_OR_RETURN(written, update_locked(job, expected));
    return written && notice ? enqueue_locked(*notice) : Status();
  }));
  return written;
}

Result<bool> SqliteJobStore::update_locked(const JobRecord& job,
                                           const std::optional<RowState>& expected) {
  Statement s(db_, sqlite_sql(update_job_sql(expected.has_value(),
                                             expected && expected->lease_expired, kSqliteNow)));
  if (!s.ok()) return db_error(db_, "prepare update");
  s.bind(1, job.id);
  bind_fields(s, 2, job);
  s.bind(21, job.retry_delay_ms);
  if (expected) {
    s.bind(22, static_cast<int64_t>(expected->state));
    s.bind(23, int64_t{expected->attempt});
  }
  if (s.step() != SQLITE_DONE) return db_error(db_, "update job " + job.id);
  if (sqlite3_changes(db_) == 0) return false;
  TC_RETURN_IF_ERROR(save_attempts_locked(job));
  return true;
}

// Every attempt the record holds (attempt_columns.h), over what the table has of them.
Status SqliteJobStore::save_attempts_locked(const JobRecord& job) {
  for (const AttemptRecord& attempt : job.attempts) {
    AttemptColumns row = attempt_columns_of(attempt);
    Statement s(db_, sqlite_sql(kUpsertAttemptSql));
    if (!s.ok()) return db_error(db_, "prepare the attempt history");
    s.bind(1, job.id);
    s.bind(2, row.number);
    s.bind(3, row.node);
    s.bind(4, row.device);
    s.bind(5, row.start_ms);
    s.bind(6, row.end_ms);
    s.bind(7, row.outcome);
    s.bind(8, row.error_code);
    s.bind(9, row.error_message);
    s.bind(10, row.error_retryable);
    if (s.step() != SQLITE_DONE) return db_error(db_, "record attempt of job " + job.id);
  }
  return save_usage_locked(job);  // sqlite_usage.cc
}

Result<std::vector<AttemptRecord>> SqliteJobStore::attempts_locked(const std::string& id) {
  Statement s(db_, sqlite_sql(kSelectAttemptsSql));
  if (!s.ok()) return db_error(db_, "prepare the attempt history");
  s.bind(1, id);
  std::vector<AttemptRecord> attempts;
  int rc;
  while ((rc = s.step()) == SQLITE_ROW) {
    AttemptColumns row{s.int_at(0),  s.text_at(1), s.text_at(2), s.int_at(3), s.int_at(4),
                       s.text_at(5), s.text_at(6), s.text_at(7), s.int_at(8)};
    TC_ASSIGN_OR_RETURN(AttemptRecord attempt, attempt_from_columns(id, row));
    attempts.push_back(std::move(attempt));
  }
  if (rc != SQLITE_DONE) return db_error(db_, "read the attempts of job " + id);
  TC_RETURN_IF_ERROR(read_usage_locked(id, attempts));
  return attempts;
}

Result<std::vector<JobRecord>> SqliteJobStore::list(std::optional<JobState> state,
                                                    int64_t before_seq, int limit,
                                                    const std::optional<std::string>& tenant) {
  std::lock_guard lock(mutex_);
  std::string sql = std::string("SELECT ") + kColumns + " FROM jobs WHERE seq < ?";
  if (state) sql += " AND state = ?";
  if (tenant) sql += " AND tenant_id = ?";
  sql += " ORDER BY seq DESC LIMIT ?";
  Statement s(db_, sql);
  if (!s.ok()) return db_error(db_, "prepare list");
  int i = 1;
  s.bind(i++, before_seq > 0 ? before_seq : INT64_MAX);
  if (state) s.bind(i++, static_cast<int64_t>(*state));
  if (tenant) s.bind(i++, *tenant);
  s.bind(i, int64_t{limit});
  return collect(db_, s);
}

Result<int> SqliteJobStore::count_in_state(JobState state) {
  std::lock_guard lock(mutex_);
  Statement s(db_, "SELECT COUNT(*) FROM jobs WHERE state = ?");
  if (!s.ok()) return db_error(db_, "prepare count");
  s.bind(1, static_cast<int64_t>(state));
  if (s.step() != SQLITE_ROW) return db_error(db_, "count");
  return static_cast<int>(s.int_at(0));
}

Result<TenantLoad> SqliteJobStore::tenant_load(const std::string& tenant) {
  std::lock_guard lock(mutex_);
  return tenant_load_locked(tenant);
}

Result<TenantLoad> SqliteJobStore::tenant_load_locked(const std::string& tenant) {
  TenantLoad load;
  Statement s(db_, sqlite_sql(tenant_load_sql(kSqliteNow)));
  if (!s.ok()) return db_error(db_, "prepare the load of tenant " + tenant);
  s.bind(1, tenant);
  if (s.step() != SQLITE_ROW) return db_error(db_, "read the load of tenant " + tenant);
  load.quotas = {s.int_at(0), s.int_at(1), s.int_at(2)};
  load.queued = s.int_at(3);
  load.running = s.int_at(4);
  load.now_ms = s.int_at(5);
  Statement use(db_, sqlite_sql(kTenantUseSinceSql));
  if (!use.ok()) return db_error(db_, "prepare the use of tenant " + tenant);
  use.bind(1, tenant);
  use.bind(2, load.now_ms - kQuotaDayMs);
  int rc;
  while ((rc = use.step()) == SQLITE_ROW) load.day.push_back({use.int_at(0), use.int_at(1)});
  if (rc != SQLITE_DONE) return db_error(db_, "read the use of tenant " + tenant);
  return load;
}

Result<int> SqliteJobStore::purge_ended_before(int64_t end_ms) {
  std::lock_guard lock(mutex_);
  Statement s(db_, "DELETE FROM jobs WHERE state >= ? AND end_ms < ?");
  if (!s.ok()) return db_error(db_, "prepare purge");
  s.bind(1, static_cast<int64_t>(JobState::kSucceeded));
  s.bind(2, end_ms);
  if (s.step() != SQLITE_DONE) return db_error(db_, "purge");
  int purged = sqlite3_changes(db_);
  Statement notices(db_, kPurgeOrphanNotifications);
  if (!notices.ok() || notices.step() != SQLITE_DONE) return db_error(db_, "purge notices");
  Statement attempts(db_, kPurgeOrphanAttemptsSql);
  if (!attempts.ok() || attempts.step() != SQLITE_DONE) return db_error(db_, "purge attempts");
  Statement logs(db_, kPurgeOrphanJobLogsSql);
  if (!logs.ok() || logs.step() != SQLITE_DONE) return db_error(db_, "purge job logs");
  return purged;
}

// The node row lives in memory (one node); the beat still writes the file, so that a store that
// stops taking writes (a full or failed file system) is found within a beat, and the health
// service says so until a beat writes again. The write: page 1's header, with the schema
// version it holds, the smallest write there is.
Status SqliteJobStore::heartbeat(const NodeRecord& node) {
  {
    std::lock_guard lock(mutex_);
    std::string probe = "PRAGMA user_version = " + std::to_string(job_store_schema_version());
    if (sqlite3_exec(db_, probe.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK)
      return db_error(db_, "write (the beat's probe)");
  }
  std::lock_guard lock(node_mutex_);
  node_ = node;
  node_->heartbeat_ms = now_ms();
  return {};
}

Result<std::vector<NodeRecord>> SqliteJobStore::list() {
  std::lock_guard lock(node_mutex_);
  if (!node_) return std::vector<NodeRecord>();
  // One node on one machine: its own clock is the store's.
  NodeRecord node = *node_;
  node.silent_ms = now_ms() - node.heartbeat_ms;
  return std::vector<NodeRecord>{node};
}

}  // namespace tc::daemon

// Claims, cancels and leases (job_queue.h, lease_table.h, lease_sql.h). With one daemon on the file
// they matter only across its restarts, but the manager runs one code path on both engines.
namespace tc::daemon {
namespace {
// The one integer an UPDATE ... RETURNING of at most one row returned; nullopt for no row.
Result<std::optional<int64_t>> returned_int(sqlite3* db, Statement& s, const std::string& what) {
  std::optional<int64_t> value;
  int rc = s.step();
  if (rc == SQLITE_ROW) {
    value = s.int_at(0);
    rc = s.step();
  }
  if (rc != SQLITE_DONE) return db_error(db, what);
  return value;
}
}  // namespace

Result<std::optional<JobRecord>> SqliteJobStore::claim(const ClaimRequest& claim,
                                                       const TakeJob& take) {
  std::lock_guard lock(mutex_);
  std::optional<JobRecord> taken;
  if (claim.backends.empty()) return taken;
  TC_RETURN_IF_ERROR(in_transaction([&]() -> Status {
    Statement s(db_, sqlite_sql(claim_candidates_sql(claim.backends.size(), kSqliteNow, "")));
    if (!s.ok()) return db_error(db_, "prepare claim");
    for (size_t i = 0; i < claim.backends.size(); ++i)
      s.bind(static_cast<int>(i) + 1, claim.backends[i]);
    s.bind(static_cast<int>(claim.backends.size()) + 1, claim.fair_share_window_ms);
    TC_ASSIGN_OR_RETURN(std::vector<JobRecord> candidates, collect(db_, s));
    for (JobRecord& job : candidates) {
      std::optional<Notification> notice;
      if (!take(job, notice)) continue;
      TC_RETURN_IF_ERROR(update_locked(job, std::nullopt).status());
      Statement lease(db_, sqlite_sql(take_lease_sql(kSqliteNow)));
      lease.bind(1, job.id);
      lease.bind(2, claim.node);
      lease.bind(3, claim.lease_ms);
      if (lease.step() != SQLITE_DONE) return db_error(db_, "lease job " + job.id);
      if (notice) TC_RETURN_IF_ERROR(enqueue_locked(*notice));
      taken = std::move(job);
      return {};
    }
    return {};
  }));
  return taken;
}

Result<std::vector<HeldJob>> SqliteJobStore::renew_leases(const std::string& node,
                                                          const std::vector<std::string>& jobs,
                                                          int64_t lease_ms) {
  std::vector<HeldJob> held;
  if (jobs.empty()) return held;
  std::lock_guard lock(mutex_);
  Statement s(db_, sqlite_sql(renew_leases_sql(kSqliteNow, jobs.size())));
  if (!s.ok()) return db_error(db_, "prepare lease renewal");
  s.bind(1, node);
  s.bind(2, lease_ms);
  for (size_t i = 0; i < jobs.size(); ++i) s.bind(static_cast<int>(i) + 3, jobs[i]);
  int rc;
  while ((rc = s.step()) == SQLITE_ROW)
    held.push_back({s.text_at(0), static_cast<int>(s.int_at(1)), s.int_at(2) == kCancelAsked});
  if (rc != SQLITE_DONE) return db_error(db_, "renew leases");
  return held;
}

Result<Fence> SqliteJobStore::hold_lease(const std::string& id, int attempt,
                                         const std::string& node, int64_t lease_ms) {
  std::lock_guard lock(mutex_);
  Statement s(db_, sqlite_sql(hold_lease_sql(kSqliteNow)));
  if (!s.ok()) return db_error(db_, "prepare the fence");
  s.bind(1, id);
  s.bind(2, int64_t{attempt});
  s.bind(3, node);
  s.bind(4, lease_ms);
  TC_ASSIGN_OR_RETURN(std::optional<int64_t> marked,
                      returned_int(db_, s, "check the lease of job " + id));
  return fence_of(marked);
}

Result<std::vector<JobRecord>> SqliteJobStore::orphans(const std::string& own_node) {
  std::lock_guard lock(mutex_);
  Statement s(db_, sqlite_sql(orphans_sql(kColumns, kSqliteNow)));
  if (!s.ok()) return db_error(db_, "prepare the orphan scan");
  s.bind(1, own_node);
  return collect(db_, s);
}

Result<CancelAnswer> SqliteJobStore::request_cancel(const std::string& id) {
  std::lock_guard lock(mutex_);
  Statement s(db_, sqlite_sql(kRequestCancelSql));
  if (!s.ok()) return db_error(db_, "prepare cancel");
  s.bind(1, id);
  TC_ASSIGN_OR_RETURN(std::optional<int64_t> marked, returned_int(db_, s, "cancel job " + id));
  return cancel_answer_of(marked);
}

}  // namespace tc::daemon
