#include "service/daemon/store/tenant_columns.h"

#include <nlohmann/json.hpp>

namespace tc::daemon {

TenantColumns tenant_to_columns(const TenantRecord& tenant) {
  return {tenant.id,
          std::string(role_name(tenant.role)),
          nlohmann::json(tenant.media_roots).dump(),
          tenant.weight,
          tenant.create_ms,
          tenant.quotas.max_queued,
          tenant.quotas.max_running,
          tenant.quotas.engine_seconds_per_day};
}

Result<TenantRecord> tenant_from_columns(const TenantColumns& row) {
  TenantRecord tenant;
  tenant.id = row.id;
  std::optional<TenantRole> role = parse_role(row.role);
  if (!role)
    return Status(Code::kInternal, "job store: tenant " + row.id + ": the stored role '" +
                                       row.role + "' does not read back");
  tenant.role = *role;
  nlohmann::json roots = nlohmann::json::parse(row.media_roots, nullptr, false);
  if (!roots.is_array())
    return Status(Code::kInternal,
                  "job store: tenant " + row.id + ": the stored media_roots do not read back");
  for (const nlohmann::json& root : roots)
    if (root.is_string()) tenant.media_roots.push_back(root.get<std::string>());
  tenant.weight = static_cast<int>(row.weight);
  tenant.create_ms = row.create_ms;
  tenant.quotas = {row.max_queued, row.max_running, row.engine_seconds_per_day};
  return tenant;
}

}  // namespace tc::daemon
