// What a request's failure means to the caller. tc::Code says what went wrong inside a job; the
// API also needs "not yours" (a path outside the roots), "not here" and "not now". The daemon's
// request path returns ApiStatus; grpc_status.h turns it into a grpc::Status in one place.
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
  kInternal,
};

class [[nodiscard]] ApiStatus {
 public:
  ApiStatus() = default;
  ApiStatus(ApiCode code, std::string message) : code_(code), message_(std::move(message)) {}
  // A job spec that tc::validate or job_spec_from_json rejected is the caller's mistake.
  static ApiStatus from_spec(const Status& status) {
    if (status.is_ok()) return {};
    return {status.code() == Code::kInternal ? ApiCode::kInternal : ApiCode::kInvalidArgument,
            status.message()};
  }
  bool is_ok() const { return code_ == ApiCode::kOk; }
  ApiCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  ApiCode code_ = ApiCode::kOk;
  std::string message_;
};

}  // namespace tc::daemon

#define TC_API_RETURN_IF_ERROR(expr)                    \
  do {                                                  \
    ::tc::daemon::ApiStatus tc_api_status_ = (expr);    \
    if (!tc_api_status_.is_ok()) return tc_api_status_; \
  } while (0)
