// The machine-readable part of a failed RPC: the transcode.v1.ErrorDetail the daemon packs in
// the grpc-status-details-bin trailer (proto/transcode/v1/error_details.proto).
#pragma once

#include <grpcpp/support/status.h>

#include <optional>
#include <string>

#include "transcode/v1/error_details.pb.h"

namespace tc::client {

// The detail of `status`, or nullopt when it carries none (an older daemon, a proxy's error).
std::optional<::transcode::v1::ErrorDetail> error_detail(const grpc::Status& status);

// For people: "reason OUTSIDE_MEDIA_ROOT, field config.outputs[0].path".
std::string describe(const ::transcode::v1::ErrorDetail& detail);

}  // namespace tc::client
