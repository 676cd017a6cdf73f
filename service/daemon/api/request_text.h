// Every string of a request, checked on the wire before it is parsed. protobuf refuses to parse a
// proto3 `string` that is not valid UTF-8, and gRPC then answers with a status that names nothing
// (UNIMPLEMENTED or INTERNAL, by version); a NUL byte parses fine and cuts a path short at the
// kernel. Walking the encoded message against its descriptor catches both in every string field,
// nested messages, repeated fields and map entries included, and names the field at fault
// ("config.outputs[1].path"), so that no field added later can miss the check.
#pragma once

#include <google/protobuf/descriptor.h>

#include <string_view>

#include "service/daemon/model/api_status.h"

namespace tc::daemon {

// ok when every string field of the message `wire` (encoded as `type`) is valid UTF-8 without a
// NUL byte; otherwise kInvalidArgument / kInvalidField naming the first field at fault. Bytes
// that do not decode as a message at all are kInvalidArgument naming no field.
ApiStatus check_request_text(const google::protobuf::Descriptor& type, std::string_view wire);

}  // namespace tc::daemon
