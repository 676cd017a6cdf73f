#include "tests/daemon/string_fields.h"

namespace tc::test {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using Reach = std::function<Message*(Message&)>;  // the message that holds the fields walked

bool is_string_map(const FieldDescriptor& field) {
  return field.is_map() &&
         field.message_type()->map_key()->type() == FieldDescriptor::TYPE_STRING &&
         field.message_type()->map_value()->type() == FieldDescriptor::TYPE_STRING;
}

void add_map_cases(const FieldDescriptor* field, const std::string& name, const Reach& reach,
                   std::vector<StringFieldCase>& out, const StringFieldCase& base) {
  auto put = [field, reach](Message& request, const std::string& key, const std::string& value) {
    Message* holder = reach(request);
    Message* entry = holder->GetReflection()->AddMessage(holder, field);
    const Descriptor* type = field->message_type();
    entry->GetReflection()->SetString(entry, type->map_key(), key);
    entry->GetReflection()->SetString(entry, type->map_value(), value);
  };
  out.push_back(
      {base.method, name + "['k']", [put](Message& m, const std::string& v) { put(m, "k", v); }});
  out.push_back({base.method, name, [put](Message& m, const std::string& v) { put(m, v, "v"); }});
}

void collect(const Descriptor& type, const std::string& prefix, const Reach& reach, int depth,
             const StringFieldCase& base, std::vector<StringFieldCase>& out) {
  for (int i = 0; i < type.field_count(); ++i) {
    const FieldDescriptor* field = type.field(i);
    std::string name = prefix + field->name();
    if (is_string_map(*field)) {
      add_map_cases(field, name, reach, out, base);
    } else if (field->type() == FieldDescriptor::TYPE_STRING) {
      out.push_back({base.method, name + (field->is_repeated() ? "[0]" : ""),
                     [field, reach](Message& m, const std::string& value) {
                       Message* holder = reach(m);
                       if (field->is_repeated())
                         holder->GetReflection()->AddString(holder, field, value);
                       else
                         holder->GetReflection()->SetString(holder, field, value);
                     }});
    } else if (field->type() == FieldDescriptor::TYPE_MESSAGE && !field->is_map() && depth < 6) {
      Reach inner = [field, reach](Message& m) {
        Message* holder = reach(m);
        return field->is_repeated() ? holder->GetReflection()->AddMessage(holder, field)
                                    : holder->GetReflection()->MutableMessage(holder, field);
      };
      collect(*field->message_type(), name + (field->is_repeated() ? "[0]." : "."), inner,
              depth + 1, base, out);
    }
  }
}

}  // namespace

std::vector<StringFieldCase> every_string_field(
    const google::protobuf::ServiceDescriptor& service) {
  std::vector<StringFieldCase> out;
  for (int i = 0; i < service.method_count(); ++i) {
    StringFieldCase base{service.method(i), "", nullptr};
    collect(
        *service.method(i)->input_type(), "", [](Message& m) { return &m; }, 0, base, out);
  }
  return out;
}

}  // namespace tc::test
