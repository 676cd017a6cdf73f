// A job as both store engines keep it: one row of plain columns, its typed fields (labels, spec,
// progress, report) as JSON text. Written once by to_columns and read once by from_columns, so
// SQLite and PostgreSQL cannot disagree on what a row means.
#pragma once

#include <cstdint>
#include <string>

#include "pipeline/core/status.h"
#include "service/daemon/model/job_record.h"

namespace tc::daemon {

// The columns in the order every SELECT names them, written once: NAME(column) gives each
// column's text, and the list is their concatenation, comma-separated, at compile time.
// clang-format off
#define TC_JOB_COLUMNS(NAME)                                                                    \
  NAME(seq) ", " NAME(id) ", " NAME(request_id) ", " NAME(state) ", "                           \
  NAME(priority) ", " NAME(labels) ", " NAME(spec) ", " NAME(create_ms) ", "                    \
  NAME(start_ms) ", " NAME(end_ms) ", " NAME(attempt) ", " NAME(device) ", "                    \
  NAME(progress) ", " NAME(report) ", " NAME(error_code) ", " NAME(error_message) ", "          \
  NAME(error_retryable) ", " NAME(webhook_url) ", " NAME(node) ", " NAME(backend) ", "          \
  NAME(device_path) ", " NAME(cancel_requested) ", " NAME(not_before_ms) ", " NAME(tenant_id)
// clang-format on
#define TC_JOB_COLUMN(column) #column
#define TC_JOBS_DOT_COLUMN(column) "jobs." #column
inline constexpr const char* kJobColumnList = TC_JOB_COLUMNS(TC_JOB_COLUMN);
// The same list with each name as "jobs.<name>", for a SELECT that joins other tables (the
// claim, lease_sql.h).
inline constexpr const char* kQualifiedJobColumnList = TC_JOB_COLUMNS(TC_JOBS_DOT_COLUMN);
#undef TC_JOB_COLUMN
#undef TC_JOBS_DOT_COLUMN

struct JobColumns {
  int64_t seq = 0;
  std::string id;
  std::string request_id;  // empty: none, stored as NULL (the column is UNIQUE)
  int64_t state = 0;
  int64_t priority = 0;
  std::string labels;  // JSON object
  std::string spec;    // tc::job_spec_to_json
  int64_t create_ms = 0;
  int64_t start_ms = 0;
  int64_t end_ms = 0;
  int64_t attempt = 0;
  std::string device;
  std::string progress;  // JSON
  std::string report;    // JSON; empty when none
  std::string error_code;
  std::string error_message;
  int64_t error_retryable = 0;
  std::string webhook_url;  // empty: none
  std::string node;
  // The spec's backend and device, for claiming (lease_sql.h): written, never read back.
  std::string backend;
  std::string device_path;
  // The cancel asked of its running attempt (lease_sql.h): read, written only by the cancel.
  int64_t cancel_requested = 0;
  // The retry backoff (attempt_columns.h): not_before_ms is read back; retry_delay_ms, when > 0,
  // is written as the store's now plus it (update_job_sql's $21).
  int64_t not_before_ms = 0;
  int64_t retry_delay_ms = 0;
  // Whose job (model/tenant.h): written by the insert alone, never updated.
  std::string tenant_id;
};

JobColumns to_columns(const JobRecord& job);

// The UPDATE of every column but seq, for both engines: $1 = id, $2 to $20 the other columns in
// kJobColumnList order, $21 the retry delay (not_before_ms becomes `now` plus it when > 0, on the
// store's clock: `now` is an SQL expression, lease_sql.h). With `expected`, only while the row
// still holds that state ($22) and attempt ($23), and with `lease_expired` only once its lease
// ran out on the store's clock.
std::string update_job_sql(bool expected, bool lease_expired, const char* now);
// kInternal naming the job and the column that does not read back.
Result<JobRecord> from_columns(const JobColumns& row);

}  // namespace tc::daemon
