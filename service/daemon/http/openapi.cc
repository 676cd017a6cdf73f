#include "service/daemon/http/openapi.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "service/daemon/http/routes.h"
#include "transcode/v1/error_details.pb.h"
#include "transcode/v1/field_behavior.pb.h"

namespace tc::daemon {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using Json = nlohmann::ordered_json;

std::string ref(const Descriptor& message) {
  return "#/components/schemas/" + message.full_name();
}

// The well-known types with a JSON form of their own; nullptr for any other message.
const char* well_known_format(const Descriptor& message) {
  if (message.full_name() == "google.protobuf.Timestamp") return "date-time";
  if (message.full_name() == "google.protobuf.Duration") return "duration";
  return nullptr;
}

Json scalar_schema(const FieldDescriptor& field, std::set<const Descriptor*>& needed) {
  switch (field.type()) {
    case FieldDescriptor::TYPE_STRING:
      return {{"type", "string"}};
    case FieldDescriptor::TYPE_BYTES:
      return {{"type", "string"}, {"format", "byte"}};
    case FieldDescriptor::TYPE_BOOL:
      return {{"type", "boolean"}};
    case FieldDescriptor::TYPE_DOUBLE:
      return {{"type", "number"}, {"format", "double"}};
    case FieldDescriptor::TYPE_FLOAT:
      return {{"type", "number"}, {"format", "float"}};
    case FieldDescriptor::TYPE_ENUM: {
      Json names = Json::array();
      for (int i = 0; i < field.enum_type()->value_count(); ++i)
        names.push_back(field.enum_type()->value(i)->name());
      return {{"type", "string"}, {"enum", names}};
    }
    case FieldDescriptor::TYPE_MESSAGE:
    case FieldDescriptor::TYPE_GROUP: {
      const Descriptor& message = *field.message_type();
      if (const char* format = well_known_format(message))
        return {{"type", "string"}, {"format", format}};
      if (message.full_name() == "google.protobuf.Any")
        return {{"type", "object"},
                {"properties", {{"@type", {{"type", "string"}}}}},
                {"additionalProperties", true}};
      needed.insert(&message);
      return {{"$ref", ref(message)}};
    }
    default:
      break;
  }
  // Integers: 64-bit ones are strings in protobuf's JSON mapping (JavaScript's numbers are not).
  bool wide = field.cpp_type() == FieldDescriptor::CPPTYPE_INT64 ||
              field.cpp_type() == FieldDescriptor::CPPTYPE_UINT64;
  if (wide) return {{"type", "string"}, {"format", "int64"}};
  return {{"type", "integer"}, {"format", "int32"}};
}

Json field_schema(const FieldDescriptor& field, std::set<const Descriptor*>& needed) {
  if (field.is_map())
    return {{"type", "object"},
            {"additionalProperties", scalar_schema(*field.message_type()->map_value(), needed)}};
  if (field.is_repeated()) return {{"type", "array"}, {"items", scalar_schema(field, needed)}};
  return scalar_schema(field, needed);
}

bool has_behaviour(const FieldDescriptor& field, transcode::v1::FieldBehavior behaviour) {
  const auto& options = field.options();
  for (int i = 0; i < options.ExtensionSize(transcode::v1::field_behavior); ++i)
    if (options.GetExtension(transcode::v1::field_behavior, i) == behaviour) return true;
  return false;
}

Json message_schema(const Descriptor& message, std::set<const Descriptor*>& needed) {
  Json properties = Json::object();
  Json required = Json::array();
  for (int i = 0; i < message.field_count(); ++i) {
    const FieldDescriptor& field = *message.field(i);
    Json schema = field_schema(field, needed);
    if (has_behaviour(field, transcode::v1::OUTPUT_ONLY)) {
      // A $ref admits no siblings in OpenAPI 3.0: the flag goes beside it in an allOf.
      if (schema.contains("$ref")) schema = {{"allOf", Json::array({schema})}};
      schema["readOnly"] = true;
    }
    if (has_behaviour(field, transcode::v1::REQUIRED)) required.push_back(field.json_name());
    properties[field.json_name()] = std::move(schema);
  }
  Json schema = {{"type", "object"}, {"properties", properties}};
  if (!required.empty()) schema["required"] = required;
  return schema;
}

// The fields a route without a body takes from the query string: those not in its path.
Json parameters(const Route& route, std::set<const Descriptor*>& needed) {
  Json list = Json::array();
  const Descriptor& input = *route.method->input_type();
  for (const std::string& name : route.path_fields)
    list.push_back({{"name", name},
                    {"in", "path"},
                    {"required", true},
                    {"schema", field_schema(*input.FindFieldByName(name), needed)}});
  if (!route.body.empty()) return list;
  for (int i = 0; i < input.field_count(); ++i) {
    const FieldDescriptor& field = *input.field(i);
    bool in_path = std::find(route.path_fields.begin(), route.path_fields.end(), field.name()) !=
                   route.path_fields.end();
    if (!in_path)
      list.push_back(
          {{"name", field.name()}, {"in", "query"}, {"schema", field_schema(field, needed)}});
  }
  return list;
}

Json operation(const Route& route, std::set<const Descriptor*>& needed) {
  const Descriptor& output = *route.method->output_type();
  needed.insert(&output);
  Json reply =
      route.method->server_streaming()
          ? Json{{"description",
                  "server-sent events: each `data:` line one " + output.name() + " as JSON"},
                 {"content", {{"text/event-stream", {{"schema", {{"$ref", ref(output)}}}}}}}}
          : Json{{"description", "OK"},
                 {"content", {{"application/json", {{"schema", {{"$ref", ref(output)}}}}}}}};
  Json op = {{"operationId", route.method->name()}, {"parameters", parameters(route, needed)}};
  if (!route.body.empty()) {
    needed.insert(route.method->input_type());
    op["requestBody"] = {
        {"required", true},
        {"content",
         {{"application/json", {{"schema", {{"$ref", ref(*route.method->input_type())}}}}}}}};
  }
  op["responses"] = {
      {"200", reply},
      {"default",
       {{"description", "the gRPC status: code, message and details (ErrorDetail: reason, field)"},
        {"content",
         {{"application/json",
           {{"schema", {{"$ref", ref(*transcode::v1::Status::descriptor())}}}}}}}}}};
  return op;
}

}  // namespace

std::string openapi_document(const google::protobuf::ServiceDescriptor& service) {
  std::set<const Descriptor*> needed = {transcode::v1::Status::descriptor(),
                                        transcode::v1::ErrorDetail::descriptor()};
  Json paths = Json::object();
  for (const Route& route : routes_of(service)) {
    std::string verb = route.verb == "POST" ? "post" : "get";
    paths[route.path_template][verb] = operation(route, needed);
  }
  // Schemas in name order, each message's own references added until none is new.
  std::map<std::string, Json> schemas;
  std::set<const Descriptor*> done;
  while (done.size() < needed.size())
    for (const Descriptor* message : std::set<const Descriptor*>(needed))
      if (done.insert(message).second)
        schemas[message->full_name()] = message_schema(*message, needed);
  Json document = {
      {"openapi", "3.0.3"},
      {"info",
       {{"title", "transcoded"},
        {"version", "v1"},
        {"description", "The HTTP/JSON API of " + service.full_name() +
                            " (proto/transcode/v1), generated by `transcoded --openapi`."}}},
      {"security", Json::array({{{"bearer", Json::array()}}})},
      {"paths", paths},
      {"components",
       {{"securitySchemes", {{"bearer", {{"type", "http"}, {"scheme", "bearer"}}}}},
        {"schemas", Json(schemas)}}}};
  return document.dump(2) + "\n";
}

}  // namespace tc::daemon
