#include "service/daemon/http/json_request.h"

#include <google/protobuf/util/json_util.h>

#include <charconv>

namespace tc::daemon {
namespace {

using google::protobuf::FieldDescriptor;

grpc::Status bad(const std::string& message) {
  return {grpc::StatusCode::INVALID_ARGUMENT, message};
}

template <class Int>
bool parse_int(const std::string& text, Int& out) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc() && end == text.data() + text.size();
}

// One path or query value into the scalar field it names (its proto or JSON name).
grpc::Status set_field(google::protobuf::Message& message, const std::string& name,
                       const std::string& value) {
  const google::protobuf::Descriptor* type = message.GetDescriptor();
  const FieldDescriptor* field = type->FindFieldByName(name);
  for (int i = 0; !field && i < type->field_count(); ++i)
    if (type->field(i)->json_name() == name) field = type->field(i);
  if (!field || field->is_repeated() || field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE)
    return bad("unknown parameter '" + name + "' for " + type->name());
  const google::protobuf::Reflection* reflection = message.GetReflection();
  int32_t i32 = 0;
  int64_t i64 = 0;
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_STRING:
      reflection->SetString(&message, field, value);
      break;
    case FieldDescriptor::CPPTYPE_INT32:
      if (!parse_int(value, i32)) return bad(name + ": '" + value + "' is not an integer");
      reflection->SetInt32(&message, field, i32);
      break;
    case FieldDescriptor::CPPTYPE_INT64:
      if (!parse_int(value, i64)) return bad(name + ": '" + value + "' is not an integer");
      reflection->SetInt64(&message, field, i64);
      break;
    case FieldDescriptor::CPPTYPE_BOOL:
      if (value != "true" && value != "false") return bad(name + ": not true or false");
      reflection->SetBool(&message, field, value == "true");
      break;
    case FieldDescriptor::CPPTYPE_ENUM: {
      const google::protobuf::EnumValueDescriptor* known =
          field->enum_type()->FindValueByName(value);
      if (!known) return bad(name + ": '" + value + "' is not a " + field->enum_type()->name());
      reflection->SetEnum(&message, field, known);
      break;
    }
    default:
      return bad("parameter '" + name + "' cannot be given in the URL");
  }
  return grpc::Status::OK;
}

}  // namespace

grpc::Status fill_request(const HttpRequestParts& parts, google::protobuf::Message& request) {
  if (!parts.body.empty()) {
    google::protobuf::util::JsonParseOptions options;
    options.ignore_unknown_fields = false;
    auto parsed = google::protobuf::util::JsonStringToMessage(parts.body, &request, options);
    if (!parsed.ok()) return bad("request body: " + std::string(parsed.message()));
  }
  for (const auto& [name, value] : parts.path_values)
    if (grpc::Status set = set_field(request, name, value); !set.ok()) return set;
  for (const auto& [name, value] : parts.query)
    if (grpc::Status set = set_field(request, name, value); !set.ok()) return set;
  return grpc::Status::OK;
}

}  // namespace tc::daemon
