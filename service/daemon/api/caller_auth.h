// Who makes a call (model/tenant.h), from its "authorization" metadata: the first thing every
// Transcoder handler does. A "Bearer tck_..." API key acts as its tenant, looked up in the store
// on every call (one primary-key read, no cache), so a key revoked through any node is refused
// by the next call on every node. Anything else goes through the static token's check
// (bearer_token.h) and, passed, acts as the admin of tenant "default": today's deployments, the
// loopback default without a token included, keep working unchanged.
#pragma once

#include <grpcpp/grpcpp.h>

#include <string>

#include "service/daemon/model/api_status.h"
#include "service/daemon/model/tenant.h"
#include "service/daemon/store/tenant_directory.h"

namespace tc::daemon {

// UNAUTHENTICATED for a key that is malformed, unknown, revoked or whose secret is wrong, the
// message saying which (with the key id, never the secret); UNAVAILABLE when the store cannot
// be read now.
ApiStatus authenticate(const grpc::ServerContextBase& context, const std::string& token,
                       TenantDirectory& tenants, Caller& caller);

// The caller a key grants.
Caller caller_of(const TenantRecord& tenant);

}  // namespace tc::daemon
