// A tenant's quotas at work (docs/tenants.md, Quotas): what it has queued, running and used, as
// the store counted them on its own clock, and what follows: a new job refused
// (RESOURCE_EXHAUSTED) or its queued jobs held, each with a reason that names the limit and says
// when it frees. The claim query applies the same holds (lease_sql.h); this says why.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/core/status.h"
#include "service/daemon/model/tenant.h"

namespace tc::daemon {

// One ended attempt's measured use (every resource summed), when the store wrote it.
struct UsageAt {
  int64_t end_ms = 0;
  int64_t used_ms = 0;  // engine-milliseconds
};

struct TenantLoad {
  TenantQuotas quotas;  // none when the tenant has no row
  int64_t queued = 0;
  int64_t running = 0;
  int64_t now_ms = 0;        // the store's clock
  std::vector<UsageAt> day;  // the use that ended in the last 24 h, oldest first
};

// The store-clock time at which enough of the day's use ages out (24 h after its end) that the
// rest is below engine_seconds_per_day; nullopt when it is below already, or there is no quota.
std::optional<int64_t> day_quota_frees_ms(const TenantLoad& load);

// Why a new job of `tenant` is refused: a Status naming the quota as its field
// ("max_queued", "engine_seconds_per_day"), or OK when it may be queued.
Status admission_refusal(const std::string& tenant, const TenantLoad& load);

// The quota a refusal from admission_refusal names; nullopt for any other status.
std::optional<std::string> refused_quota(const Status& status);

// Why `tenant`'s queued jobs are held by the claim now; empty when they are not.
std::string hold_reason(const std::string& tenant, const TenantLoad& load);

// "2026-12-06T07:15:00Z": unix ms as RFC 3339 UTC, to the second.
std::string rfc3339_utc(int64_t ms);

}  // namespace tc::daemon
