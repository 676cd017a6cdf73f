// The bearer-token check every service of the daemon runs first (Transcoder and reflection).
#pragma once

#include <grpcpp/grpcpp.h>

#include <string>

#include "service/daemon/model/api_status.h"

namespace tc::daemon {

// OK when `token` is empty (none configured) or the call's "authorization" metadata is
// "Bearer <token>"; else UNAUTHENTICATED saying which (missing or wrong).
ApiStatus check_bearer_token(const grpc::ServerContextBase& context, const std::string& token);

}  // namespace tc::daemon
