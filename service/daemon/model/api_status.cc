#include "service/daemon/model/api_status.h"

namespace tc::daemon {

ApiReason default_reason(ApiCode code) {
  switch (code) {
    case ApiCode::kOk:
    case ApiCode::kAlreadyExists:
    case ApiCode::kPermissionDenied:  // several causes: request_policy names each
      return ApiReason::kUnspecified;
    case ApiCode::kInvalidArgument:
      return ApiReason::kInvalidField;
    case ApiCode::kNotFound:
      return ApiReason::kJobNotFound;
    case ApiCode::kResourceExhausted:
      return ApiReason::kQueueFull;
    case ApiCode::kFailedPrecondition:
      return ApiReason::kJobEnded;
    case ApiCode::kUnavailable:
      return ApiReason::kShuttingDown;
    case ApiCode::kUnauthenticated:
      return ApiReason::kUnauthenticated;
    case ApiCode::kInternal:
      return ApiReason::kInternal;
  }
  return ApiReason::kUnspecified;
}

}  // namespace tc::daemon
