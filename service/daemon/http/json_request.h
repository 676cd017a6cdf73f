// An HTTP request as the gRPC request message: the JSON body by protobuf's own JSON mapping
// (unknown keys refused, as a typo must not silently drop a setting), then the path's and the
// query string's values set into the top-level fields they name. Nothing here checks a value's
// content: the gRPC service checks the request it receives, the same for both APIs.
#pragma once

#include <google/protobuf/message.h>
#include <grpcpp/support/status.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tc::daemon {

struct HttpRequestParts {
  std::string body;  // JSON; empty = {}
  std::map<std::string, std::string> path_values;
  std::vector<std::pair<std::string, std::string>> query;  // in order; a name may repeat
};

// INVALID_ARGUMENT naming the key or parameter the message cannot take.
grpc::Status fill_request(const HttpRequestParts& parts, google::protobuf::Message& request);

}  // namespace tc::daemon
