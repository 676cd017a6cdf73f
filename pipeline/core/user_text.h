// Values a user supplied (paths, ids, labels) end up in error messages and log lines. Unbounded
// they make a reply too big to send (gRPC's metadata limit) or a log line of megabytes; with a
// newline in them they forge log lines. Every user value goes into text through these.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tc {

// How much of a user value a message keeps.
inline constexpr size_t kQuotedValueChars = 256;

// `text` with control characters written as \n, \r, \t or \xNN, cut to `max_bytes` (at a UTF-8
// character boundary) with "…(N bytes)" naming the whole size. For a composed message that may
// hold user values, e.g. a job's error in a log line.
std::string escape_text(std::string_view text, size_t max_bytes = 1024);

// A user value for a message: 'value', escaped and cut as above (a ' inside is written \').
std::string quote_value(std::string_view value, size_t max_bytes = kQuotedValueChars);

}  // namespace tc
