#include "service/daemon/store/job_columns.h"

#include <nlohmann/json.hpp>

#include "service/daemon/store/lease_sql.h"

namespace tc::daemon {
namespace {

using nlohmann::json;

Status labels_from(const std::string& text, std::map<std::string, std::string>& labels) {
  json j = json::parse(text, nullptr, false);
  if (!j.is_object()) return {Code::kInternal, "not a JSON object"};
  for (auto& [key, value] : j.items()) {
    if (!value.is_string()) return {Code::kInternal, key + ": not a string"};
    labels[key] = value.get<std::string>();
  }
  return {};
}

template <typename T>
Status typed_from(const std::string& text, T& out) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) return {Code::kInternal, "not valid JSON"};
  return from_json(j, out);
}

Status report_from(const std::string& text, std::optional<JobReport>& report) {
  if (text.empty()) return {};
  report.emplace();
  return typed_from(text, *report);
}

Status column_error(const std::string& id, const char* column, const Status& why) {
  return {Code::kInternal, "job store: job " + id + ": the stored " + column +
                               " does not read back: " + why.message()};
}

}  // namespace

JobColumns to_columns(const JobRecord& job) {
  JobColumns row;
  row.seq = job.seq;
  row.id = job.id;
  row.request_id = job.request_id;
  row.state = static_cast<int64_t>(job.state);
  row.priority = job.priority;
  row.labels = json(job.labels).dump();
  row.spec = job_spec_to_json(job.spec);
  row.create_ms = job.create_ms;
  row.start_ms = job.start_ms;
  row.end_ms = job.end_ms;
  row.attempt = job.attempt;
  row.device = job.device;
  row.progress = json(job.progress).dump();
  row.report = job.report ? json(*job.report).dump() : "";
  row.error_code = std::string(code_key(job.error.code()));
  row.error_message = job.error.message();
  row.error_retryable = job.error.retryable();
  row.webhook_url = job.webhook_url;
  row.node = job.node;
  row.backend = std::string(name_of(job.spec.backend));
  row.device_path = job.spec.device;
  row.retry_delay_ms = job.retry_delay_ms;
  row.tenant_id = job.tenant;
  return row;
}

std::string update_job_sql(bool expected, bool lease_expired, const char* now) {
  std::string sql =
      "UPDATE jobs SET request_id = $2, state = $3, priority = $4, labels = $5, spec = $6, "
      "create_ms = $7, start_ms = $8, end_ms = $9, attempt = $10, device = $11, progress = $12, "
      "report = $13, error_code = $14, error_message = $15, error_retryable = $16, "
      "webhook_url = $17, node = $18, backend = $19, device_path = $20, not_before_ms = CASE "
      "WHEN CAST($21 AS BIGINT) > 0 THEN " +
      std::string(now) + " + CAST($21 AS BIGINT) ELSE not_before_ms END WHERE id = $1";
  if (expected) sql += " AND state = $22 AND attempt = $23";
  if (expected && lease_expired) sql += std::string(" AND lease_ms < ") + now;
  return sql;
}

Result<JobRecord> from_columns(const JobColumns& row) {
  JobRecord job;
  job.seq = row.seq;
  job.id = row.id;
  job.request_id = row.request_id;
  job.state = static_cast<JobState>(row.state);
  job.priority = static_cast<int>(row.priority);
  if (Status st = labels_from(row.labels, job.labels); !st.is_ok())
    return column_error(job.id, "labels", st);
  Result<JobSpec> spec = job_spec_from_json(row.spec);
  if (!spec.is_ok()) return column_error(job.id, "spec", spec.status());
  job.spec = std::move(*spec);
  job.create_ms = row.create_ms;
  job.start_ms = row.start_ms;
  job.end_ms = row.end_ms;
  job.attempt = static_cast<int>(row.attempt);
  job.device = row.device;
  job.webhook_url = row.webhook_url;
  job.node = row.node;
  job.not_before_ms = row.not_before_ms;
  job.tenant = row.tenant_id;
  job.gate = row.cancel_requested == kCancelAsked  ? AttemptGate::kCancelAsked
             : row.cancel_requested == kPublishing ? AttemptGate::kPublishing
                                                   : AttemptGate::kOpen;
  if (Status st = typed_from(row.progress, job.progress); !st.is_ok())
    return column_error(job.id, "progress", st);
  if (Status st = report_from(row.report, job.report); !st.is_ok())
    return column_error(job.id, "report", st);
  Code code = parse_code_key(row.error_code).value_or(Code::kInternal);
  if (code != Code::kOk) job.error = Status(code, row.error_message, row.error_retryable != 0);
  return job;
}

}  // namespace tc::daemon
