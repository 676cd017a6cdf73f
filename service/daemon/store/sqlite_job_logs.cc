// The SQLite engine's job logs (job_logs.h): an append is one IMMEDIATE transaction on the
// store's one connection.
#include <sqlite3.h>

#include "service/daemon/store/job_log_sql.h"
#include "service/daemon/store/sqlite_job_store.h"
#include "service/daemon/store/sqlite_statement.h"

namespace tc::daemon {
namespace {

Status log_error(sqlite3* db, const std::string& what) {
  return {Code::kInternal, "job store: job logs: " + what + ": " + sqlite3_errmsg(db), true};
}

}  // namespace

Result<LogHead> SqliteJobStore::log_head_locked(const std::string& id, int attempt) {
  Statement s(db_, sqlite_sql(kJobLogHeadSql));
  s.bind(1, id);
  s.bind(2, int64_t{attempt});
  if (!s.ok() || s.step() != SQLITE_ROW) return log_error(db_, "read the head of job " + id);
  return LogHead{s.int_at(0), s.int_at(1), s.int_at(2) > 0};
}

Status SqliteJobStore::insert_log_locked(const std::string& id, const JobLogLine& line, bool head) {
  Statement s(db_, sqlite_sql(kInsertJobLogSql));
  s.bind(1, id);
  s.bind(2, int64_t{line.attempt});
  s.bind(3, line.seq);
  s.bind(4, line.time_ms);
  s.bind(5, std::string(level_name(line.level)));
  s.bind(6, int64_t{head});
  s.bind(7, static_cast<int64_t>(line.text.size()));
  s.bind(8, line.text);
  if (!s.ok() || s.step() != SQLITE_DONE) return log_error(db_, "append to job " + id);
  return {};
}

Status SqliteJobStore::append_log(const std::string& id, int attempt,
                                  const std::vector<JobLogLine>& lines) {
  if (lines.empty()) return {};
  std::lock_guard lock(mutex_);
  return in_transaction([&]() -> Status {
    TC_ASSIGN_OR_RETURN(LogHead head, log_head_locked(id, attempt));
    for (const JobLogLine& line : lines)
      TC_RETURN_IF_ERROR(insert_log_locked(id, line, head.take(line)));
    Statement trim(db_, sqlite_sql(kTrimJobLogSql));
    trim.bind(1, id);
    trim.bind(2, int64_t{attempt});
    trim.bind(3, int64_t{kLogTailLines});
    trim.bind(4, kLogSideBytes);
    if (!trim.ok() || trim.step() != SQLITE_DONE) return log_error(db_, "trim job " + id);
    return {};
  });
}

Result<JobLog> SqliteJobStore::read_log(const std::string& id, int attempt) {
  std::lock_guard lock(mutex_);
  Statement s(db_, sqlite_sql(kReadJobLogSql));
  s.bind(1, id);
  s.bind(2, int64_t{attempt});
  std::vector<JobLogLine> lines;
  int rc;
  while ((rc = s.step()) == SQLITE_ROW)
    lines.push_back({static_cast<int>(s.int_at(0)), s.int_at(1), s.int_at(2),
                     parse_level(s.text_at(3)).value_or(LogLevel::kInfo), s.text_at(4)});
  if (!s.ok() || rc != SQLITE_DONE) return log_error(db_, "read job " + id);
  return job_log_of(std::move(lines));
}

}  // namespace tc::daemon
