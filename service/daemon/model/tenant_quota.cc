#include "service/daemon/model/tenant_quota.h"

#include <ctime>

namespace tc::daemon {
namespace {

constexpr int64_t kDayMs = 86400000;
constexpr Code kQuotaCode = Code::kUnsupported;  // with a quota as its field: RESOURCE_EXHAUSTED

int64_t day_used_ms(const TenantLoad& load) {
  int64_t sum = 0;
  for (const UsageAt& u : load.day) sum += u.used_ms;
  return sum;
}

bool day_quota_reached(const TenantLoad& load) {
  int64_t limit = load.quotas.engine_seconds_per_day;
  return limit > 0 && day_used_ms(load) >= limit * 1000;
}

std::string plural(int64_t n, const char* one) {
  return std::to_string(n) + " " + one + (n == 1 ? "" : "s");
}

// "tenant team-a used 7300 engine-seconds in the last 24 h, its engine_seconds_per_day is 7200:
// it frees at 2026-12-06T08:00:00Z"
std::string day_quota_text(const std::string& tenant, const TenantLoad& load) {
  std::optional<int64_t> frees = day_quota_frees_ms(load);
  return "tenant " + tenant + " used " + std::to_string(day_used_ms(load) / 1000) +
         " engine-seconds in the last 24 h, its engine_seconds_per_day is " +
         std::to_string(load.quotas.engine_seconds_per_day) + ": it frees at " +
         rfc3339_utc(frees.value_or(load.now_ms)) + ", when enough of that use is a day old";
}

}  // namespace

std::optional<int64_t> day_quota_frees_ms(const TenantLoad& load) {
  if (!day_quota_reached(load)) return std::nullopt;
  int64_t limit_ms = load.quotas.engine_seconds_per_day * 1000;
  int64_t left = day_used_ms(load);
  for (const UsageAt& u : load.day) {
    left -= u.used_ms;
    if (left < limit_ms) return u.end_ms + kDayMs;
  }
  return load.now_ms;  // not reached: the rows summed to the total
}

Status admission_refusal(const std::string& tenant, const TenantLoad& load) {
  int64_t max_queued = load.quotas.max_queued;
  if (max_queued > 0 && load.queued >= max_queued)
    return Status::of_field(kQuotaCode, "max_queued",
                            "tenant " + tenant + " has " + plural(load.queued, "job") +
                                " queued, its max_queued is " + std::to_string(max_queued) +
                                ": the next is accepted when one of them starts or is cancelled");
  if (day_quota_reached(load))
    return Status::of_field(kQuotaCode, "engine_seconds_per_day", day_quota_text(tenant, load));
  return {};
}

std::optional<std::string> refused_quota(const Status& status) {
  if (status.code() != kQuotaCode) return std::nullopt;
  if (status.field() != "max_queued" && status.field() != "engine_seconds_per_day")
    return std::nullopt;
  return status.field();
}

std::string hold_reason(const std::string& tenant, const TenantLoad& load) {
  int64_t max_running = load.quotas.max_running;
  if (max_running > 0 && load.running >= max_running)
    return "tenant " + tenant + " runs " + plural(load.running, "job") + ", its max_running is " +
           std::to_string(max_running) + ": the next starts when one of them ends";
  if (day_quota_reached(load)) return day_quota_text(tenant, load);
  return "";
}

std::string rfc3339_utc(int64_t ms) {
  std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace tc::daemon
