// The keys of one JSON object of a job spec (the job, an output, package, thumbnails), each read
// at most once. Keys are snake_case, as `transcode --json`, webhooks and the job file print them;
// the proto JSON names of the same fields (lowerCamelCase: `bFrames`, `segmentS`, what
// protobuf's JSON mapping of JobConfig writes) are accepted too, so that what a program reads
// back can be sent again. A key that no reader asked for is refused, naming it: `{"widht": 320}`
// must not run with the default width.
#pragma once

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>

#include "pipeline/core/status.h"

namespace tc {

class JsonFields {
 public:
  // `object` must outlive this. `where` prefixes the names in errors: "outputs[0]." or "".
  JsonFields(const nlohmann::json& object, std::string where)
      : object_(object), where_(std::move(where)) {}

  // The value of `key` (snake_case) or of its lowerCamelCase form, marked read; nullptr when
  // neither is there or it is null. kInvalidArgument when both forms are there.
  Result<const nlohmann::json*> find(std::string_view key);

  // kInvalidArgument naming the first key that find() never asked for (the field is the object
  // that holds it: "outputs[0]", "job" for the top level).
  Status unknown_keys() const;

 private:
  const nlohmann::json& object_;
  std::string where_;
  std::set<std::string, std::less<>> read_;  // the keys as they appear in the object
};

// "b_frames" -> "bFrames": protobuf's json_name for a snake_case field.
std::string lower_camel_case(std::string_view snake);

}  // namespace tc
