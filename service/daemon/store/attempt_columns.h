// A job's attempt history as both store engines keep it (model/attempt_record.h): the table of
// schema version 5, its statements, and one row's columns, written by attempt_columns_of and read
// by attempt_from_columns only, so SQLite and PostgreSQL cannot disagree on what a row means.
// The engines save a job's attempts with its row, in its transaction (JobQueue::write), and read
// them back in JobQueue::get.
#pragma once

#include <cstdint>
#include <string>

#include "pipeline/core/status.h"
#include "service/daemon/model/attempt_record.h"

namespace tc::daemon {

// Schema version 5: the history, one row per attempt; and the retry backoff's not-before (unix
// ms on the store's clock: a claim skips a queued row until then). A job of an older database
// that has run gets the row of its latest attempt from the job's own columns (the earlier ones
// were not kept); a queued one gets none (its last attempt's end was not kept).
inline constexpr const char* kAddAttemptsSql = R"sql(
CREATE TABLE job_attempts (
  job_id TEXT NOT NULL,
  number INTEGER NOT NULL,
  node TEXT NOT NULL,
  device TEXT NOT NULL,
  start_ms BIGINT NOT NULL,
  end_ms BIGINT NOT NULL,           -- 0 while running
  outcome TEXT NOT NULL,            -- outcome_name(): running, succeeded, crashed, lost, ...
  error_code TEXT NOT NULL,         -- code_key(), "ok" when none
  error_message TEXT NOT NULL,
  error_retryable INTEGER NOT NULL,
  PRIMARY KEY (job_id, number)
);
ALTER TABLE jobs ADD COLUMN not_before_ms BIGINT NOT NULL DEFAULT 0;
INSERT INTO job_attempts (job_id, number, node, device, start_ms, end_ms, outcome, error_code,
                          error_message, error_retryable)
  SELECT id, attempt, node, device, start_ms, end_ms,
         CASE state WHEN 2 THEN 'running' WHEN 3 THEN 'succeeded' WHEN 4 THEN 'failed'
                    ELSE 'cancelled' END,
         error_code, error_message, error_retryable
  FROM jobs WHERE attempt > 0 AND state >= 2;
)sql";

// $1 = job id, $2... the other columns in kAttemptColumnList order.
inline constexpr const char* kUpsertAttemptSql =
    "INSERT INTO job_attempts (job_id, number, node, device, start_ms, end_ms, outcome, "
    "error_code, error_message, error_retryable) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, "
    "$10) ON CONFLICT (job_id, number) DO UPDATE SET node = excluded.node, device = "
    "excluded.device, start_ms = excluded.start_ms, end_ms = excluded.end_ms, outcome = "
    "excluded.outcome, error_code = excluded.error_code, error_message = excluded.error_message, "
    "error_retryable = excluded.error_retryable";

// $1 = job id: its attempts, oldest first, in AttemptColumns order.
inline constexpr const char* kSelectAttemptsSql =
    "SELECT number, node, device, start_ms, end_ms, outcome, error_code, error_message, "
    "error_retryable FROM job_attempts WHERE job_id = $1 ORDER BY number";

// The history of jobs purged (JobQueue::purge_ended_before) goes with them.
inline constexpr const char* kPurgeOrphanAttemptsSql =
    "DELETE FROM job_attempts WHERE job_id NOT IN (SELECT id FROM jobs)";

struct AttemptColumns {
  int64_t number = 0;
  std::string node;
  std::string device;
  int64_t start_ms = 0;
  int64_t end_ms = 0;
  std::string outcome;
  std::string error_code;
  std::string error_message;
  int64_t error_retryable = 0;
};

AttemptColumns attempt_columns_of(const AttemptRecord& attempt);
// kInternal naming the job when the outcome does not read back.
Result<AttemptRecord> attempt_from_columns(const std::string& job_id, const AttemptColumns& row);

}  // namespace tc::daemon
