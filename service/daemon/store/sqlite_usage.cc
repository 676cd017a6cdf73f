// The SQLite engine's usage role (usage_ledger.h) and its part of JobQueue::write and get: the
// attempts' attempt_usage rows, under the store's mutex.
#include "service/daemon/store/lease_sql.h"
#include "service/daemon/store/sqlite_job_store.h"
#include "service/daemon/store/sqlite_statement.h"
#include "service/daemon/store/usage_ledger.h"

namespace tc::daemon {
namespace {

Status usage_error(sqlite3* db, const std::string& what) {
  return {Code::kInternal, "job store: " + what + ": " + sqlite3_errmsg(db), true};
}

}  // namespace

// Each attempt's use (a running one's so far): insert_attempt_usage_sql says when a row changes.
// One statement prepared per write, reset and bound again for each row (a job's write carries
// every attempt's rows, each write of its progress among them).
Status SqliteJobStore::save_usage_locked(const JobRecord& job) {
  bool any = false;
  for (const AttemptRecord& attempt : job.attempts) any = any || !attempt.usage.empty();
  if (!any) return {};
  Statement s(db_, sqlite_sql(insert_attempt_usage_sql(kSqliteNow)));
  if (!s.ok()) return usage_error(db_, "prepare the attempt usage");
  for (const AttemptRecord& attempt : job.attempts) {
    for (const auto& [resource, seconds] : attempt.usage) {
      s.reset();
      s.bind(1, job.id);
      s.bind(2, int64_t{attempt.number});
      s.bind(3, job.tenant);
      s.bind(4, resource);
      s.bind_double(5, seconds);
      if (s.step() != SQLITE_DONE) return usage_error(db_, "record the usage of job " + job.id);
    }
  }
  return {};
}

Status SqliteJobStore::read_usage_locked(const std::string& id,
                                         std::vector<AttemptRecord>& attempts) {
  Statement s(db_, sqlite_sql(kSelectAttemptUsageSql));
  if (!s.ok()) return usage_error(db_, "prepare the attempt usage");
  s.bind(1, id);
  int rc;
  while ((rc = s.step()) == SQLITE_ROW) {
    int64_t number = s.int_at(0);
    for (AttemptRecord& attempt : attempts)
      if (attempt.number == number) attempt.usage[s.text_at(1)] = s.double_at(2);
  }
  if (rc != SQLITE_DONE) return usage_error(db_, "read the usage of job " + id);
  return {};
}

Result<std::vector<UsageRow>> SqliteJobStore::sum_usage(const std::optional<std::string>& tenant,
                                                        int64_t since_ms, int64_t until_ms) {
  std::lock_guard lock(mutex_);
  Statement s(db_, sqlite_sql(sum_usage_sql(tenant.has_value())));
  if (!s.ok()) return usage_error(db_, "prepare the usage sum");
  s.bind(1, since_ms);
  s.bind(2, until_ms);
  if (tenant) s.bind(3, *tenant);
  std::vector<UsageRow> rows;
  int rc;
  while ((rc = s.step()) == SQLITE_ROW)
    rows.push_back({s.text_at(0), s.text_at(1), s.double_at(2)});
  if (rc != SQLITE_DONE) return usage_error(db_, "sum the usage");
  return rows;
}

}  // namespace tc::daemon
