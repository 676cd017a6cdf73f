// A tenant as both engines keep it: its media roots as a JSON array, its role as its name.
// Written by tenant_to_columns and read by tenant_from_columns alone, so the engines agree.
#pragma once

#include <cstdint>
#include <string>

#include "pipeline/core/status.h"
#include "service/daemon/model/tenant.h"

namespace tc::daemon {

struct TenantColumns {
  std::string id;
  std::string role;
  std::string media_roots;  // JSON array
  int64_t weight = 1;
  int64_t create_ms = 0;
  int64_t max_queued = 0;
  int64_t max_running = 0;
  int64_t engine_seconds_per_day = 0;
};

TenantColumns tenant_to_columns(const TenantRecord& tenant);
// kInternal naming the tenant and the column that does not read back.
Result<TenantRecord> tenant_from_columns(const TenantColumns& row);

}  // namespace tc::daemon
