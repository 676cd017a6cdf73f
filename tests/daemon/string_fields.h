// Every string field a client can send, found by walking the service's descriptors: a test that
// sends a bad value in each cannot miss a field added later.
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <functional>
#include <string>
#include <vector>

namespace tc::test {

struct StringFieldCase {
  const google::protobuf::MethodDescriptor* method;
  std::string field;  // as the API names it in errors: "config.outputs[0].path", "labels['k']"
  // Puts `value` into that field of a fresh request of the method's input type.
  std::function<void(google::protobuf::Message& request, const std::string& value)> set;
};

// One case per string field (and per key and value of each map<string, string>) of each
// method's request, nested messages included (repeated ones as their first element).
std::vector<StringFieldCase> every_string_field(const google::protobuf::ServiceDescriptor& service);

}  // namespace tc::test
