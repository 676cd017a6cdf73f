#include "service/client/error_details.h"

namespace tc::client {

namespace pb = ::transcode::v1;

std::optional<pb::ErrorDetail> error_detail(const grpc::Status& status) {
  pb::Status wire;
  if (status.error_details().empty() || !wire.ParseFromString(status.error_details()))
    return std::nullopt;
  for (const google::protobuf::Any& any : wire.details()) {
    pb::ErrorDetail detail;
    if (any.UnpackTo(&detail)) return detail;
  }
  return std::nullopt;
}

std::string describe(const pb::ErrorDetail& detail) {
  std::string text = "reason " + pb::Reason_Name(detail.reason());
  if (!detail.field().empty()) text += ", field " + detail.field();
  return text;
}

}  // namespace tc::client
