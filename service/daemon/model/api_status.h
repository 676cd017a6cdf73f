// What a request's failure means to the caller. tc::Code says what went wrong inside a job; the
// API also needs "not yours" (a path outside the roots), "not here" and "not now". The daemon's
// request path returns ApiStatus; grpc_status.h turns it into a grpc::Status in one place.
// Beside the code and the message for people, an ApiStatus carries what a program needs: a
// reason and the request field at fault, sent as transcode.v1.ErrorDetail (error_details.proto).
#pragma once

#include <string>
#include <utility>

#include "pipeline/core/status.h"

namespace tc::daemon {

enum class ApiCode {
  kOk = 0,
  kInvalidArgument,     // a bad spec or request field
  kPermissionDenied,    // a path outside the media roots, a protocol not allowed, a bad token
  kNotFound,            // an unknown job
  kResourceExhausted,   // the queue is full
  kFailedPrecondition,  // e.g. cancel of a job that has ended
  kUnavailable,         // shutting down
  kUnauthenticated,     // no or wrong bearer token
  kAlreadyExists,       // a tenant id taken
  kInternal,
};

// transcode.v1.Reason, value for value (error_details.proto says what each means).
enum class ApiReason {
  kUnspecified = 0,
  kInvalidField = 1,
  kOutsideMediaRoot = 2,
  kProtocolNotAllowed = 3,
  kPathNotFound = 4,
  kLimitExceeded = 5,
  kJobNotFound = 6,
  kJobEnded = 7,
  kQueueFull = 8,
  kShuttingDown = 9,
  kUnauthenticated = 10,
  kInternal = 11,
  kTooLarge = 12,
  kStoreUnavailable = 13,
};

// The reason of a status made without one: the one cause each of these codes has today.
ApiReason default_reason(ApiCode code);

class [[nodiscard]] ApiStatus {
 public:
  ApiStatus() = default;
  ApiStatus(ApiCode code, std::string message)
      : code_(code), reason_(default_reason(code)), message_(std::move(message)) {}
  // A failure of one request field: the message reads "field: problem".
  ApiStatus(ApiCode code, ApiReason reason, std::string field, const std::string& problem)
      : code_(code),
        reason_(reason),
        field_(std::move(field)),
        message_(field_.empty() ? problem : field_ + ": " + problem) {}
  // A job spec that tc::validate or job_spec_from_json rejected is the caller's mistake.
  static ApiStatus from_spec(const Status& status) {
    if (status.is_ok()) return {};
    if (status.code() == Code::kInternal) return {ApiCode::kInternal, status.message()};
    ApiStatus api(ApiCode::kInvalidArgument, status.message());
    api.field_ = status.field();
    return api;
  }
  // The same failure, its field named from an enclosing message: "input" -> "config.input".
  ApiStatus within(const std::string& parent) const {
    ApiStatus outer = *this;
    if (!field_.empty()) outer.field_ = parent + "." + field_;
    return outer;
  }
  bool is_ok() const { return code_ == ApiCode::kOk; }
  ApiCode code() const { return code_; }
  ApiReason reason() const { return reason_; }
  const std::string& field() const { return field_; }  // empty when no one field is at fault
  const std::string& message() const { return message_; }

 private:
  ApiCode code_ = ApiCode::kOk;
  ApiReason reason_ = ApiReason::kUnspecified;
  std::string field_;
  std::string message_;
};

}  // namespace tc::daemon

#define TC_API_RETURN_IF_ERROR(expr)                    \
  do {                                                  \
    ::tc::daemon::ApiStatus tc_api_status_ = (expr);    \
    if (!tc_api_status_.is_ok()) return tc_api_status_; \
  } while (0)
