// `transcode usage`: the tenants' measured use per resource over a period (GetUsage;
// docs/tenants.md, Usage).
#pragma once

#include <cstdint>
#include <string>

#include "pipeline/core/status.h"
#include "service/client/connection.h"

namespace tc::client {

struct UsageArgs {
  std::string tenant;  // empty: the caller's own (a tenant's key) or every tenant (an admin)
  std::string since;   // WHEN; empty: 30 days before --until
  std::string until;   // WHEN; empty: now
  bool json = false;
};

// WHEN as unix ms: an RFC 3339 time ("2026-12-01T00:00:00Z") or a duration back from `now_ms`
// ("90s", "30m", "24h", "7d"). kInvalidArgument naming `flag` and the text otherwise.
Result<int64_t> parse_when(const std::string& flag, const std::string& text, int64_t now_ms);

// Exit 0, kExitUsage for a bad WHEN (before any call), or the RPC failure's code.
int usage_command(const UsageArgs& args, const Connection& connection);

}  // namespace tc::client
