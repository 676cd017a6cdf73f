// The job store's usage role: what the tenants measurably used (model/attempt_usage.h), summed
// per tenant and resource over a period, for billing (docs/tenants.md, Usage). The rows are the
// attempt_usage table of schema version 8 (usage_sql.h), written by JobQueue::write with the
// attempt's end; both engines play the role (sqlite_usage.cc, pg_usage.cc), the contract is
// tests/daemon/store_contract_test.cc.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/core/status.h"

namespace tc::daemon {

// One tenant's use of one resource ("cpu", "video", "nvenc", ...) in a period, in seconds.
struct UsageRow {
  std::string tenant;
  std::string resource;
  double seconds = 0;
};

class UsageLedger {
 public:
  virtual ~UsageLedger() = default;

  // The use of `tenant` (every tenant's when nullopt) by the attempts whose end was stored in
  // [since_ms, until_ms) on the store's clock, summed per tenant and resource, ordered by
  // tenant then resource; one statement. A tenant with no use in the period has no row.
  virtual Result<std::vector<UsageRow>> sum_usage(const std::optional<std::string>& tenant,
                                                  int64_t since_ms, int64_t until_ms) = 0;
};

// $1 job id, $2 attempt, $3 tenant, $4 resource, $5 seconds; end_ms = `now` (the engine's
// clock, lease_sql.h). A running attempt's row holds its use so far, replaced (and stamped
// anew) as it grows and by its final figures; a row written again with the figures it holds
// (a write retried after its answer was lost, the job's later writes) stays as it is, its
// end_ms too: an attempt is billed once.
std::string insert_attempt_usage_sql(const char* now);

// $1 = job id: its attempts' use, in (attempt, resource, seconds) columns.
inline constexpr const char* kSelectAttemptUsageSql =
    "SELECT attempt, resource, seconds FROM attempt_usage WHERE job_id = $1 "
    "ORDER BY attempt, resource";

// $1 since_ms, $2 until_ms, and $3 the tenant when `one_tenant`: UsageLedger::sum_usage's
// statement, in (tenant, resource, seconds) columns.
std::string sum_usage_sql(bool one_tenant);

}  // namespace tc::daemon
