#include "service/daemon/api/request_text.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <map>
#include <optional>
#include <string>

#include "pipeline/core/text_field.h"

namespace tc::daemon {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedInputStream;

// Deeper than any request of transcode.v1 nests; a bound on the recursion an attacker controls.
constexpr int kMaxDepth = 16;

ApiStatus undecodable() {
  return {ApiCode::kInvalidArgument, ApiReason::kInvalidField, "",
          "the request is not a valid protobuf message"};
}

// "outputs[1]" for the second occurrence of a repeated field, "path" for a singular one.
std::string field_path(const std::string& parent, const FieldDescriptor& field, int occurrence) {
  std::string name = parent.empty() ? field.name() : parent + "." + field.name();
  if (field.is_repeated()) name += "[" + std::to_string(occurrence) + "]";
  return name;
}

// What check_text finds wrong with `value` ("contains a NUL byte"), empty when nothing. Lengths
// are bounded per field after parsing; here only what cannot be represented.
std::string text_problem(std::string_view value) {
  Status text = check_text(value, value.size(), "");
  return text.is_ok() ? "" : text.message().substr(2);  // past the empty field's ": "
}

ApiStatus check_string(std::string_view value, const std::string& path) {
  std::string problem = text_problem(value);
  if (problem.empty()) return {};
  return {ApiCode::kInvalidArgument, ApiReason::kInvalidField, path, problem};
}

ApiStatus check_message(const Descriptor& type, std::string_view wire, const std::string& parent,
                        int depth);

// The first length-delimited field numbered `number` in `wire`, or nullopt.
std::optional<std::string_view> delimited_field(std::string_view wire, int number) {
  CodedInputStream input(reinterpret_cast<const uint8_t*>(wire.data()),
                         static_cast<int>(wire.size()));
  while (uint32_t tag = input.ReadTag()) {
    if (WireFormatLite::GetTagWireType(tag) != WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      if (!WireFormatLite::SkipField(&input, tag)) return std::nullopt;
      continue;
    }
    uint32_t length = 0;
    if (!input.ReadVarint32(&length)) return std::nullopt;
    size_t at = static_cast<size_t>(input.CurrentPosition());
    if (length > wire.size() - at || !input.Skip(static_cast<int>(length))) return std::nullopt;
    if (static_cast<int>(WireFormatLite::GetTagFieldNumber(tag)) == number)
      return wire.substr(at, length);
  }
  return std::nullopt;
}

// A map<string, string> entry, named as the API names map entries elsewhere: "labels['team']"
// for its value, "labels" for its key (the key being what cannot be printed).
ApiStatus check_string_map_entry(const FieldDescriptor& map, std::string_view entry,
                                 const std::string& parent) {
  std::string name = parent.empty() ? map.name() : parent + "." + map.name();
  std::string_view key = delimited_field(entry, 1).value_or("");
  std::string_view value = delimited_field(entry, 2).value_or("");
  std::string key_problem = text_problem(key);
  if (!key_problem.empty())
    return {ApiCode::kInvalidArgument, ApiReason::kInvalidField, name, "a key " + key_problem};
  return check_string(value, name + "['" + std::string(key) + "']");
}

bool is_string_map(const FieldDescriptor& field) {
  return field.is_map() &&
         field.message_type()->map_key()->type() == FieldDescriptor::TYPE_STRING &&
         field.message_type()->map_value()->type() == FieldDescriptor::TYPE_STRING;
}

// One length-delimited field of `type`: a string is checked, a message walked, the rest skipped.
ApiStatus check_delimited(const FieldDescriptor* field, std::string_view value,
                          const std::string& parent, const std::string& path, int depth) {
  if (field == nullptr) return {};  // unknown to this build: parsing keeps it opaque
  if (field->type() == FieldDescriptor::TYPE_STRING) return check_string(value, path);
  if (is_string_map(*field)) return check_string_map_entry(*field, value, parent);
  if (field->type() == FieldDescriptor::TYPE_MESSAGE)
    return check_message(*field->message_type(), value, path, depth + 1);
  return {};
}

ApiStatus check_message(const Descriptor& type, std::string_view wire, const std::string& parent,
                        int depth) {
  if (depth > kMaxDepth) return undecodable();
  CodedInputStream input(reinterpret_cast<const uint8_t*>(wire.data()),
                         static_cast<int>(wire.size()));
  std::map<int, int> seen;  // field number -> occurrences so far
  while (uint32_t tag = input.ReadTag()) {
    if (WireFormatLite::GetTagWireType(tag) != WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      if (!WireFormatLite::SkipField(&input, tag)) return undecodable();
      continue;
    }
    uint32_t length = 0;
    if (!input.ReadVarint32(&length)) return undecodable();
    size_t at = static_cast<size_t>(input.CurrentPosition());
    if (length > wire.size() - at || !input.Skip(static_cast<int>(length))) return undecodable();
    int number = static_cast<int>(WireFormatLite::GetTagFieldNumber(tag));
    const FieldDescriptor* field = type.FindFieldByNumber(number);
    std::string path = field ? field_path(parent, *field, seen[number]++) : "";
    TC_API_RETURN_IF_ERROR(check_delimited(field, wire.substr(at, length), parent, path, depth));
  }
  if (!input.ConsumedEntireMessage() || input.CurrentPosition() != static_cast<int>(wire.size()))
    return undecodable();
  return {};
}

}  // namespace

ApiStatus check_request_text(const Descriptor& type, std::string_view wire) {
  if (wire.size() > static_cast<size_t>(INT32_MAX)) return undecodable();
  return check_message(type, wire, "", 0);
}

}  // namespace tc::daemon
