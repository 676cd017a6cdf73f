// A failed call as HTTP: the status code by the standard gRPC-to-HTTP mapping (google.rpc.Code's
// comments, as grpc-gateway maps them) and a google.rpc.Status-shaped JSON body carrying the
// error details the gRPC API sends (transcode.v1.Status: code, message, details with the
// ErrorDetail's reason and field).
#pragma once

#include <grpcpp/support/status.h>

#include <string>

namespace tc::daemon {

int http_status_of(grpc::StatusCode code);

// {"code": 3, "message": "...", "details": [{"@type": ".../transcode.v1.ErrorDetail", ...}]}.
std::string status_body(const grpc::Status& status);

}  // namespace tc::daemon
