#include "pipeline/spec/json_fields.h"

#include <cctype>

#include "pipeline/core/user_text.h"

namespace tc {

std::string lower_camel_case(std::string_view snake) {
  std::string camel;
  bool upper = false;
  for (char c : snake) {
    if (c == '_') {
      upper = true;
      continue;
    }
    camel += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return camel;
}

Result<const nlohmann::json*> JsonFields::find(std::string_view key) {
  std::string snake(key), camel = lower_camel_case(key);
  auto as_snake = object_.find(snake);
  auto as_camel = camel == snake ? object_.end() : object_.find(camel);
  if (as_snake != object_.end() && as_camel != object_.end())
    return Status::of_field(Code::kInvalidArgument, where_ + snake,
                            "given twice, as \"" + snake + "\" and \"" + camel + "\"");
  auto found = as_snake != object_.end() ? as_snake : as_camel;
  if (found == object_.end()) return static_cast<const nlohmann::json*>(nullptr);
  read_.insert(found.key());
  return found->is_null() ? nullptr : &*found;
}

Status JsonFields::unknown_keys() const {
  // Named by the object that holds it (the key itself may be anything a file can hold).
  std::string field = where_.empty() ? "job" : where_.substr(0, where_.size() - 1);
  for (auto it = object_.begin(); it != object_.end(); ++it)
    if (!read_.count(it.key()))
      return Status::of_field(Code::kInvalidArgument, field,
                              "unknown key " + quote_value(it.key()));
  return Status::ok();
}

}  // namespace tc
