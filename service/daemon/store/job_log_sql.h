// The job logs' SQL, one text for both engines (the SQLite engine turns $N into its own ?N), and
// the steps both run for an append (job_logs.h).
#pragma once

#include <string>

namespace tc::daemon {

// A migration step of both engines: one row a line; `head` = 1 for the lines the bound never
// drops (model/job_log.h LogHead), `bytes` its text's size (SQLite counts characters only).
inline constexpr const char* kCreateJobLogsSql = R"sql(
CREATE TABLE job_logs (
  job_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  seq BIGINT NOT NULL,
  time_ms BIGINT NOT NULL,
  level TEXT NOT NULL,
  head INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  text TEXT NOT NULL,
  PRIMARY KEY (job_id, attempt, seq)
);
)sql";

// $1 = job, $2 = attempt: its head's lines and bytes, and its tail's lines.
inline constexpr const char* kJobLogHeadSql =
    "SELECT COALESCE(SUM(head), 0), COALESCE(SUM(head * bytes), 0), COALESCE(SUM(1 - head), 0) "
    "FROM job_logs WHERE job_id = $1 AND attempt = $2";

inline constexpr const char* kInsertJobLogSql =
    "INSERT INTO job_logs (job_id, attempt, seq, time_ms, level, head, bytes, text) VALUES ($1, "
    "$2, $3, $4, $5, $6, $7, $8)";

// $1 = job, $2 = attempt, $3 = tail lines, $4 = tail bytes: drops the tail's lines older than
// its newest $3, or than those within $4 bytes.
inline constexpr const char* kTrimJobLogSql =
    "DELETE FROM job_logs WHERE job_id = $1 AND attempt = $2 AND head = 0 AND seq IN (SELECT seq "
    "FROM (SELECT seq, ROW_NUMBER() OVER (ORDER BY seq DESC) AS n, SUM(bytes) OVER (ORDER BY seq "
    "DESC) AS b FROM job_logs WHERE job_id = $1 AND attempt = $2 AND head = 0) t WHERE n > $3 OR "
    "b > $4)";

// $1 = job, $2 = attempt (0 = all).
inline constexpr const char* kReadJobLogSql =
    "SELECT attempt, seq, time_ms, level, text FROM job_logs WHERE job_id = $1 AND ($2 = 0 OR "
    "attempt = $2) ORDER BY attempt, seq";

// The lines of jobs no longer in the store: run with the retention purge.
inline constexpr const char* kPurgeOrphanJobLogsSql =
    "DELETE FROM job_logs WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE jobs.id = job_logs.job_id)";

}  // namespace tc::daemon
