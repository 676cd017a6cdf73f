#include "service/daemon/api/grpc_status.h"

#include "pipeline/core/user_text.h"
#include "transcode/v1/error_details.pb.h"

namespace tc::daemon {
namespace {

namespace pb = ::transcode::v1;

// ApiReason mirrors pb::Reason value for value.
static_assert(static_cast<int>(ApiReason::kInternal) == pb::INTERNAL_ERROR &&
              static_cast<int>(ApiReason::kTooLarge) == pb::TOO_LARGE &&
              static_cast<int>(ApiReason::kStoreUnavailable) == pb::STORE_UNAVAILABLE &&
              pb::Reason_MAX == pb::STORE_UNAVAILABLE);

// The message travels twice in the trailers (grpc-message and the details): messages quote user
// values cut short already; this bound is the last guard under gRPC's 8 KiB metadata limit.
constexpr size_t kMaxMessageBytes = 2048;

grpc::StatusCode grpc_code(ApiCode code) {
  switch (code) {
    case ApiCode::kOk:
      return grpc::StatusCode::OK;
    case ApiCode::kInvalidArgument:
      return grpc::StatusCode::INVALID_ARGUMENT;
    case ApiCode::kPermissionDenied:
      return grpc::StatusCode::PERMISSION_DENIED;
    case ApiCode::kNotFound:
      return grpc::StatusCode::NOT_FOUND;
    case ApiCode::kResourceExhausted:
      return grpc::StatusCode::RESOURCE_EXHAUSTED;
    case ApiCode::kFailedPrecondition:
      return grpc::StatusCode::FAILED_PRECONDITION;
    case ApiCode::kUnavailable:
      return grpc::StatusCode::UNAVAILABLE;
    case ApiCode::kUnauthenticated:
      return grpc::StatusCode::UNAUTHENTICATED;
    case ApiCode::kAlreadyExists:
      return grpc::StatusCode::ALREADY_EXISTS;
    case ApiCode::kInternal:
      return grpc::StatusCode::INTERNAL;
  }
  return grpc::StatusCode::INTERNAL;
}

// The grpc-status-details-bin payload: a google.rpc.Status-shaped message holding the detail.
std::string status_details(grpc::StatusCode code, const ApiStatus& status,
                           const std::string& message) {
  pb::ErrorDetail detail;
  detail.set_reason(static_cast<pb::Reason>(status.reason()));
  detail.set_field(escape_text(status.field(), kMaxMessageBytes));
  pb::Status wire;
  wire.set_code(code);
  wire.set_message(message);
  wire.add_details()->PackFrom(detail);
  return wire.SerializeAsString();
}

}  // namespace

grpc::Status to_grpc_status(const ApiStatus& status) {
  if (status.is_ok()) return grpc::Status::OK;
  grpc::StatusCode code = grpc_code(status.code());
  std::string message = escape_text(status.message(), kMaxMessageBytes);
  return {code, message, status_details(code, status, message)};
}

}  // namespace tc::daemon
