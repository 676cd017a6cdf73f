#include "pipeline/spec/loudness.h"

#include <string>

#include "pipeline/core/user_text.h"

namespace tc {

LoudnessTarget loudness_target(Loudnorm loudnorm) {
  switch (loudnorm) {
    case Loudnorm::kEbu:
      return {-23, 7, -2};  // EBU R128 (2020): -23 LUFS; LRA and peak as loudnorm's defaults
    case Loudnorm::kStreaming:
      return {-16, 11, -1.5};  // AES TD1004 streaming: -16 LUFS, -1 dBTP with margin
    case Loudnorm::kOff:
      break;
  }
  return {};
}

Result<Loudnorm> parse_loudnorm(std::string_view name) {
  for (Loudnorm value : {Loudnorm::kOff, Loudnorm::kEbu, Loudnorm::kStreaming})
    if (name == name_of(value)) return value;
  return Status(Code::kInvalidArgument,
                "unknown loudness target " + quote_value(name) + " (one of: off, ebu, streaming)");
}

std::string_view name_of(Loudnorm loudnorm) {
  switch (loudnorm) {
    case Loudnorm::kEbu:
      return "ebu";
    case Loudnorm::kStreaming:
      return "streaming";
    case Loudnorm::kOff:
      break;
  }
  return "off";
}

}  // namespace tc
