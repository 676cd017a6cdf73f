// The OpenAPI 3.0 document of the HTTP/JSON API, from the same descriptors and http options the
// gateway routes by: paths from the routes, schemas from the messages in protobuf's JSON mapping
// (lowerCamelCase names, 64-bit integers as strings, enums by name, Timestamps as RFC 3339),
// required and readOnly from the fields' AIP-203 behaviour. `transcoded --openapi` prints it;
// docs/openapi.json is its output, and a test fails when the two differ.
#pragma once

#include <google/protobuf/descriptor.h>

#include <string>

namespace tc::daemon {

std::string openapi_document(const google::protobuf::ServiceDescriptor& service);

}  // namespace tc::daemon
