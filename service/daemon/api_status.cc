#include "service/daemon/api_status.h"

#include <regex>

namespace tc::daemon {

ApiReason default_reason(ApiCode code) {
  switch (code) {
    case ApiCode::kOk:
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

std::string leading_field(const std::string& message) {
  // snake_case names, with indexes, joined by dots: "duration_s", "outputs[1].audio_bitrate".
  static const std::regex field(R"(^([a-z_]+(\[[0-9]+\])?(\.[a-z_]+(\[[0-9]+\])?)*): )");
  std::smatch match;
  return std::regex_search(message, match, field) ? match[1].str() : "";
}

}  // namespace tc::daemon
