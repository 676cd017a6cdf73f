#include "pipeline/core/text_field.h"

namespace tc {
namespace {

// The length of the UTF-8 character at `text[i]`, 0 when it is not well formed (RFC 3629).
size_t char_length(std::string_view text, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char c = byte(i);
  if (c < 0x80) return 1;
  size_t n;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;  // overlong
    if (c == 0xED) hi = 0x9F;  // UTF-16 surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;  // overlong
    if (c == 0xF4) hi = 0x8F;  // past U+10FFFF
  } else {
    return 0;
  }
  if (text.size() - i < n) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  return n;
}

}  // namespace

size_t invalid_utf8_at(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    size_t n = char_length(text, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

Status check_text(std::string_view value, size_t max_bytes, const std::string& field) {
  if (value.size() > max_bytes)
    return Status::of_field(
        Code::kInvalidArgument, field,
        std::to_string(value.size()) + " bytes, more than " + std::to_string(max_bytes));
  if (value.find('\0') != std::string_view::npos)
    return Status::of_field(Code::kInvalidArgument, field, "contains a NUL byte");
  size_t bad = invalid_utf8_at(value);
  if (bad != std::string_view::npos)
    return Status::of_field(Code::kInvalidArgument, field,
                            "not valid UTF-8 (at byte " + std::to_string(bad) + ")");
  return Status::ok();
}

std::string cut_text(std::string_view text, size_t max_bytes) {
  size_t end = 0;
  while (end < text.size()) {
    size_t n = char_length(text, end);
    if (n == 0 || end + n > max_bytes) break;
    end += n;
  }
  return std::string(text.substr(0, end));
}

}  // namespace tc
