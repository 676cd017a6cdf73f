#include "service/daemon/store/usage_ledger.h"

namespace tc::daemon {

std::string insert_attempt_usage_sql(const char* now) {
  return std::string(
             "INSERT INTO attempt_usage (job_id, attempt, tenant_id, end_ms, resource, seconds) "
             "VALUES ($1, $2, $3, ") +
         now +
         ", $4, $5) ON CONFLICT (job_id, attempt, resource) DO UPDATE SET end_ms = "
         "excluded.end_ms, seconds = excluded.seconds WHERE attempt_usage.seconds <> "
         "excluded.seconds";
}

std::string sum_usage_sql(bool one_tenant) {
  return std::string(
             "SELECT tenant_id, resource, SUM(seconds) FROM attempt_usage WHERE end_ms >= $1 "
             "AND end_ms < $2") +
         (one_tenant ? " AND tenant_id = $3" : "") +
         " GROUP BY tenant_id, resource ORDER BY tenant_id, resource";
}

}  // namespace tc::daemon
