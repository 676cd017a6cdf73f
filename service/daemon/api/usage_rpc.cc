// GetUsage (transcoder.proto): the tenants' measured use, summed by the store's usage ledger
// (store/usage_ledger.h) in one statement, scoped by the caller as jobs are: a tenant's key sees
// its own tenant alone, and another tenant's name is NOT_FOUND (its existence is not told).
#include <map>

#include "service/daemon/api/proto_convert.h"
#include "service/daemon/api/transcoder_service.h"

namespace tc::daemon {
namespace {

constexpr int64_t kDefaultPeriodMs = int64_t{30} * 86400 * 1000;  // the last 30 days

ApiStatus unknown_tenant(const std::string& tenant) {
  return {ApiCode::kNotFound, "tenant '" + tenant + "' not found"};
}

// The tenants summed: the caller's own (a tenant's key), the one named, or every one (nullopt).
Result<std::optional<std::string>> usage_scope(const Caller& caller, const std::string& named,
                                               TenantDirectory& tenants, ApiStatus& refusal) {
  if (!caller.admin) {
    if (!named.empty() && named != caller.tenant) refusal = unknown_tenant(named);
    return std::optional<std::string>(caller.tenant);
  }
  if (named.empty()) return std::optional<std::string>();
  TC_ASSIGN_OR_RETURN(std::optional<TenantRecord> found, tenants.find_tenant(named));
  if (!found) refusal = unknown_tenant(named);
  return std::optional<std::string>(named);
}

// The ledger's rows, one entry per tenant; the tenant named gets one even with no use.
void usage_to_proto(const std::vector<UsageRow>& rows, const std::optional<std::string>& scope,
                    pb::GetUsageResponse& out) {
  std::map<std::string, ResourceSeconds> by_tenant;
  if (scope) by_tenant[*scope][kCpuResource] = 0;
  for (const UsageRow& row : rows) by_tenant[row.tenant][row.resource] += row.seconds;
  for (const auto& [tenant, usage] : by_tenant) {
    pb::TenantUsage* entry = out.add_tenants();
    entry->set_tenant(tenant);
    for (const auto& [resource, seconds] : usage)
      if (resource == kCpuResource)
        entry->mutable_usage()->set_cpu_seconds(seconds);
      else
        (*entry->mutable_usage()->mutable_engine_seconds())[resource] = seconds;
  }
}

}  // namespace

ApiStatus TranscoderService::usage(const Caller& caller, const pb::GetUsageRequest& request,
                                   pb::GetUsageResponse& out) {
  int64_t until = request.until_ms() > 0 ? request.until_ms() : now_ms();
  int64_t since = request.since_ms() > 0 ? request.since_ms() : until - kDefaultPeriodMs;
  if (since >= until)
    return {ApiCode::kInvalidArgument, "since_ms (" + std::to_string(since) +
                                           ") must be before until_ms (" + std::to_string(until) +
                                           ")"};
  UsageLedger* ledger = manager_.usage();
  if (!ledger) return {ApiCode::kInternal, "this job store keeps no usage"};
  ApiStatus refusal;
  Result<std::optional<std::string>> scope =
      usage_scope(caller, request.tenant(), manager_.tenants(), refusal);
  if (!scope.is_ok()) return {ApiCode::kInternal, scope.status().message()};
  if (!refusal.is_ok()) return refusal;
  Result<std::vector<UsageRow>> rows = ledger->sum_usage(*scope, since, until);
  if (!rows.is_ok()) return {ApiCode::kInternal, rows.status().message()};
  usage_to_proto(*rows, *scope, out);
  out.set_since_ms(since);
  out.set_until_ms(until);
  return {};
}

}  // namespace tc::daemon
