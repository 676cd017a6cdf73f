// "Representable text": what every string a user hands us (CLI option, --job JSON, gRPC field,
// label, webhook URL) must be before it is stored or used. A NUL byte cuts a path short at the
// kernel (`DIR/src.mp4\0.mkv` opens DIR/src.mp4, the input), invalid UTF-8 cannot travel in a
// protobuf `string` or JSON, and a value of megabytes is stored, listed and logged for the whole
// retention. One check for all of them, at every edge, naming the field at fault.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "pipeline/core/status.h"

namespace tc {

// Bounds on stored strings (bytes). Paths: PATH_MAX. Names (device, preset, container, segment
// name, languages): 256. A stream title read from the media is cut to kMaxTitleBytes.
inline constexpr size_t kMaxTextPathBytes = 4096;
inline constexpr size_t kMaxTextNameBytes = 256;
inline constexpr size_t kMaxTitleBytes = 256;

// The offset of the first byte that does not begin or continue a well-formed UTF-8 character
// (overlong forms, surrogates and code points past U+10FFFF are not well formed); npos if none.
size_t invalid_utf8_at(std::string_view text);

// kInvalidArgument naming `field` ("outputs[1].path: contains a NUL byte") when `value` holds a
// NUL byte, is not valid UTF-8, or is longer than `max_bytes`; ok otherwise. The message never
// repeats the value (it may be megabytes, or what made it unprintable).
Status check_text(std::string_view value, size_t max_bytes, const std::string& field);

// `text` cut to at most `max_bytes` at a character boundary (valid UTF-8 assumed; an invalid
// tail is dropped). For text read from media (stream titles) that is stored, not refused.
std::string cut_text(std::string_view text, size_t max_bytes);

}  // namespace tc
