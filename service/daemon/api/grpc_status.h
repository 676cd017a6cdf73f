// The one place an ApiStatus becomes a grpc::Status.
#pragma once

#include <grpcpp/support/status.h>

#include "service/daemon/model/api_status.h"

namespace tc::daemon {

grpc::Status to_grpc_status(const ApiStatus& status);

}  // namespace tc::daemon
