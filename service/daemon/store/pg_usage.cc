// The PostgreSQL engine's usage role (usage_ledger.h) and its part of JobQueue::write and get:
// the attempts' attempt_usage rows, on the store's connection.
#include <charconv>

#include "service/daemon/store/lease_sql.h"
#include "service/daemon/store/pg_job_store.h"
#include "service/daemon/store/usage_ledger.h"

namespace tc::daemon {
namespace {

// Both ways as the shortest text that reads back exactly (PostgreSQL's own, extra_float_digits
// 1, is that too).
std::string text_of_double(double value) {
  char buffer[32];
  auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
  return std::string(buffer, end);
}

double double_of(const std::string& text) {
  double value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

}  // namespace

// Each attempt's use (a running one's so far): insert_attempt_usage_sql says when a row changes.
Status PgJobStore::save_usage_locked(const JobRecord& job) {
  for (const AttemptRecord& attempt : job.attempts) {
    for (const auto& [resource, seconds] : attempt.usage)
      TC_RETURN_IF_ERROR(db_->query(insert_attempt_usage_sql(kPgNow),
                                    {job.id, std::to_string(attempt.number), job.tenant, resource,
                                     text_of_double(seconds)},
                                    "record the usage of job " + job.id)
                             .status());
  }
  return {};
}

Status PgJobStore::read_usage_locked(const std::string& id, std::vector<AttemptRecord>& attempts) {
  TC_ASSIGN_OR_RETURN(PgRows rows,
                      db_->query(kSelectAttemptUsageSql, {id}, "read the usage of job " + id));
  for (int i = 0; i < rows.size(); ++i)
    for (AttemptRecord& attempt : attempts)
      if (attempt.number == rows.integer(i, 0))
        attempt.usage[rows.text(i, 1)] = double_of(rows.text(i, 2));
  return {};
}

Result<std::vector<UsageRow>> PgJobStore::sum_usage(const std::optional<std::string>& tenant,
                                                    int64_t since_ms, int64_t until_ms) {
  PgParams params{std::to_string(since_ms), std::to_string(until_ms)};
  if (tenant) params.push_back(*tenant);
  std::lock_guard lock(mutex_);
  TC_ASSIGN_OR_RETURN(PgRows rows,
                      db_->query(sum_usage_sql(tenant.has_value()), params, "sum the usage"));
  std::vector<UsageRow> sums;
  for (int i = 0; i < rows.size(); ++i)
    sums.push_back({rows.text(i, 0), rows.text(i, 1), double_of(rows.text(i, 2))});
  return sums;
}

}  // namespace tc::daemon
