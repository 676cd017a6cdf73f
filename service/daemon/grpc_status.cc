#include "service/daemon/grpc_status.h"

namespace tc::daemon {

grpc::Status to_grpc_status(const ApiStatus& status) {
  switch (status.code()) {
    case ApiCode::kOk:
      return grpc::Status::OK;
    case ApiCode::kInvalidArgument:
      return {grpc::StatusCode::INVALID_ARGUMENT, status.message()};
    case ApiCode::kPermissionDenied:
      return {grpc::StatusCode::PERMISSION_DENIED, status.message()};
    case ApiCode::kNotFound:
      return {grpc::StatusCode::NOT_FOUND, status.message()};
    case ApiCode::kResourceExhausted:
      return {grpc::StatusCode::RESOURCE_EXHAUSTED, status.message()};
    case ApiCode::kFailedPrecondition:
      return {grpc::StatusCode::FAILED_PRECONDITION, status.message()};
    case ApiCode::kUnavailable:
      return {grpc::StatusCode::UNAVAILABLE, status.message()};
    case ApiCode::kUnauthenticated:
      return {grpc::StatusCode::UNAUTHENTICATED, status.message()};
    case ApiCode::kInternal:
      return {grpc::StatusCode::INTERNAL, status.message()};
  }
  return {grpc::StatusCode::INTERNAL, status.message()};
}

}  // namespace tc::daemon
