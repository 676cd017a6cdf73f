#include "service/daemon/job_store.h"

#include <sqlite3.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "service/daemon/worker_protocol.h"

namespace tc::daemon {
namespace {

constexpr const char* kSchema = R"sql(
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

constexpr const char* kColumns =
    "seq, id, request_id, state, priority, labels, spec, create_ms, start_ms, end_ms, attempt, "
    "device, progress, report, error_code, error_message, error_retryable";

Status db_error(sqlite3* db, const std::string& what) {
  return {Code::kInternal, "job store: " + what + ": " + sqlite3_errmsg(db), true};
}

// A prepared statement that finalises itself; binds by 1-based index.
class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK) stmt_ = nullptr;
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  bool ok() const { return stmt_ != nullptr; }
  void bind(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
  void bind(int i, const std::string& v) {
    sqlite3_bind_text(stmt_, i, v.c_str(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  }
  void bind_null(int i) { sqlite3_bind_null(stmt_, i); }
  // SQLITE_ROW, SQLITE_DONE or an error code.
  int step() { return sqlite3_step(stmt_); }
  int64_t int_at(int i) { return sqlite3_column_int64(stmt_, i); }
  std::string text_at(int i) {
    const unsigned char* text = sqlite3_column_text(stmt_, i);
    return text ? reinterpret_cast<const char*>(text) : "";
  }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

std::string labels_json(const std::map<std::string, std::string>& labels) {
  return nlohmann::json(labels).dump();
}

std::map<std::string, std::string> labels_from(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  std::map<std::string, std::string> labels;
  if (!j.is_object()) return labels;
  for (auto& [k, v] : j.items())
    if (v.is_string()) labels[k] = v.get<std::string>();
  return labels;
}

JobRecord row_to_job(Statement& s) {
  JobRecord job;
  job.seq = s.int_at(0);
  job.id = s.text_at(1);
  job.request_id = s.text_at(2);
  job.state = static_cast<JobState>(s.int_at(3));
  job.priority = static_cast<int>(s.int_at(4));
  job.labels = labels_from(s.text_at(5));
  job.spec_json = s.text_at(6);
  job.create_ms = s.int_at(7);
  job.start_ms = s.int_at(8);
  job.end_ms = s.int_at(9);
  job.attempt = static_cast<int>(s.int_at(10));
  job.device = s.text_at(11);
  job.progress = progress_from_json(s.text_at(12));
  job.report_json = s.text_at(13);
  Code code = parse_code_key(s.text_at(14)).value_or(Code::kInternal);
  if (code != Code::kOk) job.error = Status(code, s.text_at(15), s.int_at(16) != 0);
  return job;
}

// Binds the columns after seq and id, from index `first`, in kColumns order.
void bind_fields(Statement& s, int first, const JobRecord& job) {
  if (job.request_id.empty())
    s.bind_null(first);
  else
    s.bind(first, job.request_id);
  s.bind(first + 1, static_cast<int64_t>(job.state));
  s.bind(first + 2, int64_t{job.priority});
  s.bind(first + 3, labels_json(job.labels));
  s.bind(first + 4, job.spec_json);
  s.bind(first + 5, job.create_ms);
  s.bind(first + 6, job.start_ms);
  s.bind(first + 7, job.end_ms);
  s.bind(first + 8, int64_t{job.attempt});
  s.bind(first + 9, job.device);
  s.bind(first + 10, progress_json(job.progress));
  s.bind(first + 11, job.report_json);
  s.bind(first + 12, std::string(code_key(job.error.code())));
  s.bind(first + 13, job.error.message());
  s.bind(first + 14, int64_t{job.error.retryable()});
}

Result<std::vector<JobRecord>> collect(sqlite3* db, Statement& s) {
  std::vector<JobRecord> jobs;
  int rc;
  while ((rc = s.step()) == SQLITE_ROW) jobs.push_back(row_to_job(s));
  if (rc != SQLITE_DONE) return db_error(db, "read");
  return jobs;
}

}  // namespace

Result<std::unique_ptr<JobStore>> JobStore::open(const std::string& state_dir) {
  std::error_code ec;
  std::filesystem::create_directories(state_dir, ec);
  if (ec)
    return Status(Code::kInternal, "state_dir: cannot create " + state_dir + ": " + ec.message());
  std::string path = state_dir + "/jobs.sqlite3";
  sqlite3* db = nullptr;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    Status status = db_error(db, "open " + path);
    sqlite3_close(db);
    return status;
  }
  std::unique_ptr<JobStore> store(new JobStore(db));
  sqlite3_busy_timeout(db, 5000);
  // WAL: readers never block the writer; NORMAL sync is durable across a process kill (the
  // case that matters here), only an OS crash may lose the last transactions.
  TC_RETURN_IF_ERROR(store->exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"));
  TC_RETURN_IF_ERROR(store->exec(kSchema));
  return store;
}

JobStore::~JobStore() {
  sqlite3_close(db_);
}

Status JobStore::exec(const char* sql) {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &error) == SQLITE_OK) return {};
  Status status(Code::kInternal, std::string("job store: ") + (error ? error : "exec failed"));
  sqlite3_free(error);
  return status;
}

Result<bool> JobStore::insert(JobRecord& job) {
  std::lock_guard lock(mutex_);
  if (!job.request_id.empty()) {
    Statement find(db_, std::string("SELECT ") + kColumns + " FROM jobs WHERE request_id = ?");
    find.bind(1, job.request_id);
    if (find.step() == SQLITE_ROW) {
      job = row_to_job(find);
      return false;
    }
  }
  Statement s(db_, std::string("INSERT INTO jobs (") + kColumns +
                       ") VALUES (NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  if (!s.ok()) return db_error(db_, "prepare insert");
  s.bind(1, job.id);
  bind_fields(s, 2, job);
  if (s.step() != SQLITE_DONE) return db_error(db_, "insert job " + job.id);
  job.seq = sqlite3_last_insert_rowid(db_);
  return true;
}

Result<std::optional<JobRecord>> JobStore::get(const std::string& id) {
  std::lock_guard lock(mutex_);
  Statement s(db_, std::string("SELECT ") + kColumns + " FROM jobs WHERE id = ?");
  if (!s.ok()) return db_error(db_, "prepare get");
  s.bind(1, id);
  int rc = s.step();
  if (rc == SQLITE_DONE) return std::optional<JobRecord>();
  if (rc != SQLITE_ROW) return db_error(db_, "get job " + id);
  return std::optional<JobRecord>(row_to_job(s));
}

Result<std::optional<JobRecord>> JobStore::find_by_request_id(const std::string& request_id) {
  std::lock_guard lock(mutex_);
  Statement s(db_, std::string("SELECT ") + kColumns + " FROM jobs WHERE request_id = ?");
  if (!s.ok()) return db_error(db_, "prepare find");
  s.bind(1, request_id);
  int rc = s.step();
  if (rc == SQLITE_DONE) return std::optional<JobRecord>();
  if (rc != SQLITE_ROW) return db_error(db_, "find request " + request_id);
  return std::optional<JobRecord>(row_to_job(s));
}

Status JobStore::update(const JobRecord& job) {
  std::lock_guard lock(mutex_);
  Statement s(db_,
              "UPDATE jobs SET request_id = ?, state = ?, priority = ?, labels = ?, spec = ?, "
              "create_ms = ?, start_ms = ?, end_ms = ?, attempt = ?, device = ?, progress = ?, "
              "report = ?, error_code = ?, error_message = ?, error_retryable = ? WHERE id = ?");
  if (!s.ok()) return db_error(db_, "prepare update");
  bind_fields(s, 1, job);
  s.bind(16, job.id);
  if (s.step() != SQLITE_DONE) return db_error(db_, "update job " + job.id);
  return {};
}

Result<std::vector<JobRecord>> JobStore::list(std::optional<JobState> state, int64_t before_seq,
                                              int limit) {
  std::lock_guard lock(mutex_);
  std::string sql = std::string("SELECT ") + kColumns + " FROM jobs WHERE seq < ?";
  if (state) sql += " AND state = ?";
  sql += " ORDER BY seq DESC LIMIT ?";
  Statement s(db_, sql);
  if (!s.ok()) return db_error(db_, "prepare list");
  int i = 1;
  s.bind(i++, before_seq > 0 ? before_seq : INT64_MAX);
  if (state) s.bind(i++, static_cast<int64_t>(*state));
  s.bind(i, int64_t{limit});
  return collect(db_, s);
}

Result<std::vector<JobRecord>> JobStore::all_in_state(JobState state) {
  std::lock_guard lock(mutex_);
  Statement s(db_, std::string("SELECT ") + kColumns + " FROM jobs WHERE state = ? ORDER BY seq");
  if (!s.ok()) return db_error(db_, "prepare scan");
  s.bind(1, static_cast<int64_t>(state));
  return collect(db_, s);
}

Result<int> JobStore::count_in_state(JobState state) {
  std::lock_guard lock(mutex_);
  Statement s(db_, "SELECT COUNT(*) FROM jobs WHERE state = ?");
  if (!s.ok()) return db_error(db_, "prepare count");
  s.bind(1, static_cast<int64_t>(state));
  if (s.step() != SQLITE_ROW) return db_error(db_, "count");
  return static_cast<int>(s.int_at(0));
}

Result<int> JobStore::purge_ended_before(int64_t end_ms) {
  std::lock_guard lock(mutex_);
  Statement s(db_, "DELETE FROM jobs WHERE state >= ? AND end_ms < ?");
  if (!s.ok()) return db_error(db_, "prepare purge");
  s.bind(1, static_cast<int64_t>(JobState::kSucceeded));
  s.bind(2, end_ms);
  if (s.step() != SQLITE_DONE) return db_error(db_, "purge");
  return sqlite3_changes(db_);
}

}  // namespace tc::daemon
