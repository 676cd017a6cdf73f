#include "service/daemon/http/status_body.h"

#include <google/protobuf/util/json_util.h>

#include "transcode/v1/error_details.pb.h"

namespace tc::daemon {

int http_status_of(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return 200;
    case grpc::StatusCode::CANCELLED:
      return 499;
    case grpc::StatusCode::INVALID_ARGUMENT:
      return 400;
    case grpc::StatusCode::FAILED_PRECONDITION:
      return 400;
    case grpc::StatusCode::OUT_OF_RANGE:
      return 400;
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return 504;
    case grpc::StatusCode::NOT_FOUND:
      return 404;
    case grpc::StatusCode::ALREADY_EXISTS:
      return 409;
    case grpc::StatusCode::ABORTED:
      return 409;
    case grpc::StatusCode::PERMISSION_DENIED:
      return 403;
    case grpc::StatusCode::UNAUTHENTICATED:
      return 401;
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return 429;
    case grpc::StatusCode::UNIMPLEMENTED:
      return 501;
    case grpc::StatusCode::UNAVAILABLE:
      return 503;
    default:
      return 500;  // UNKNOWN, INTERNAL, DATA_LOSS
  }
}

std::string status_body(const grpc::Status& status) {
  transcode::v1::Status body;
  // The details the service attached (grpc-status-details-bin) are this message already.
  if (status.error_details().empty() || !body.ParseFromString(status.error_details())) {
    body.Clear();
    body.set_code(status.error_code());
    body.set_message(status.error_message());
  }
  std::string json;
  if (!google::protobuf::util::MessageToJsonString(body, &json).ok())
    return R"({"code":13,"message":"the error could not be written as JSON"})";
  return json;
}

}  // namespace tc::daemon
