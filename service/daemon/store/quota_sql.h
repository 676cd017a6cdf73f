// A tenant's load for its quotas (tenant_quota.h), one text for both engines (SQLite turns $N
// into ?N). Reads schema version 8's columns (usage_sql.h).
#pragma once

#include <string>

namespace tc::daemon {

// $1 = tenant: its quotas (0 when it has no row), its queued and running jobs, and the store's
// clock `now` in ms.
inline std::string tenant_load_sql(const char* now) {
  return std::string(
             "SELECT COALESCE(t.max_queued, 0), COALESCE(t.max_running, 0), "
             "COALESCE(t.engine_seconds_per_day, 0), "
             "(SELECT COUNT(*) FROM jobs WHERE tenant_id = $1 AND state = 1), "
             "(SELECT COUNT(*) FROM jobs WHERE tenant_id = $1 AND state = 2), ") +
         now + " FROM (SELECT CAST($1 AS TEXT) AS id) AS me LEFT JOIN tenants t ON t.id = me.id";
}

// $1 = tenant, $2 = a store-clock time (ms): its use that ended after it, oldest first, in
// engine-milliseconds.
inline constexpr const char* kTenantUseSinceSql =
    "SELECT end_ms, CAST(ROUND(seconds * 1000) AS BIGINT) FROM attempt_usage "
    "WHERE tenant_id = $1 AND end_ms > $2 ORDER BY end_ms";

// $1 = tenant: held until the transaction ends, so that two nodes inserting jobs of one tenant
// count its queue one after the other (PostgreSQL; SQLite's one writer holds the database).
inline constexpr const char* kLockTenantSql = "SELECT id FROM tenants WHERE id = $1 FOR UPDATE";

}  // namespace tc::daemon
