// The PostgreSQL engine's job logs (job_logs.h): an append is one transaction. Only the attempt
// holding a job writes its lines, so appends to one attempt's log never race.
#include "service/daemon/store/job_log_sql.h"
#include "service/daemon/store/pg_job_store.h"

namespace tc::daemon {

Status PgJobStore::append_log(const std::string& id, int attempt,
                              const std::vector<JobLogLine>& lines) {
  if (lines.empty()) return {};
  const std::string number = std::to_string(attempt);
  std::lock_guard lock(mutex_);
  return db_->transaction(
      [&]() -> Status {
        TC_ASSIGN_OR_RETURN(PgRows rows,
                            db_->query(kJobLogHeadSql, {id, number}, "read a job log's head"));
        LogHead head{rows.integer(0, 0), rows.integer(0, 1), rows.integer(0, 2) > 0};
        for (const JobLogLine& line : lines)
          TC_RETURN_IF_ERROR(
              db_->query(kInsertJobLogSql,
                         {id, number, std::to_string(line.seq), std::to_string(line.time_ms),
                          std::string(level_name(line.level)), head.take(line) ? "1" : "0",
                          std::to_string(line.text.size()), line.text},
                         "append to job " + id + "'s log")
                  .status());
        return db_
            ->query(kTrimJobLogSql,
                    {id, number, std::to_string(kLogTailLines), std::to_string(kLogSideBytes)},
                    "trim job " + id + "'s log")
            .status();
      },
      "append to a job log");
}

Result<JobLog> PgJobStore::read_log(const std::string& id, int attempt) {
  std::lock_guard lock(mutex_);
  TC_ASSIGN_OR_RETURN(PgRows rows, db_->query(kReadJobLogSql, {id, std::to_string(attempt)},
                                              "read job " + id + "'s log"));
  std::vector<JobLogLine> lines;
  for (int i = 0; i < rows.size(); ++i)
    lines.push_back({static_cast<int>(rows.integer(i, 0)), rows.integer(i, 1), rows.integer(i, 2),
                     parse_level(rows.text(i, 3)).value_or(LogLevel::kInfo), rows.text(i, 4)});
  return job_log_of(std::move(lines));
}

}  // namespace tc::daemon
