// Requests and replies as bytes, for the methods that take their request raw (see
// transcoder_service.h): every string field is checked on the wire before protobuf parses it.
#pragma once

#include <google/protobuf/message.h>
#include <grpcpp/support/byte_buffer.h>

#include <string>

#include "service/daemon/api/request_text.h"
#include "service/daemon/model/api_status.h"

namespace tc::daemon {

// The buffer's bytes, whole (gRPC hands them over as slices).
std::string bytes_of(const grpc::ByteBuffer& buffer);

// `message` encoded, as one slice.
grpc::ByteBuffer serialized(const google::protobuf::Message& message);

// `request` parsed from `wire` once check_request_text finds every string representable:
// kInvalidArgument naming the field otherwise, or naming the type when the bytes are no message.
template <class Request>
ApiStatus parse_request(const grpc::ByteBuffer& wire, Request& request) {
  std::string bytes = bytes_of(wire);
  TC_API_RETURN_IF_ERROR(check_request_text(*Request::descriptor(), bytes));
  if (!request.ParseFromString(bytes))
    return {ApiCode::kInvalidArgument, ApiReason::kInvalidField, "",
            "the request is not a valid " + Request::descriptor()->full_name()};
  return {};
}

}  // namespace tc::daemon
