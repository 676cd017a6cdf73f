#include "pipeline/core/user_text.h"

#include <cstdio>

namespace tc {
namespace {

void append_escaped(std::string& out, char c, bool escape_quote) {
  auto byte = static_cast<unsigned char>(c);
  if (c == '\n') {
    out += "\\n";
  } else if (c == '\r') {
    out += "\\r";
  } else if (c == '\t') {
    out += "\\t";
  } else if (byte < 0x20 || byte == 0x7f) {
    char hex[5];
    std::snprintf(hex, sizeof hex, "\\x%02x", byte);
    out += hex;
  } else if (escape_quote && c == '\'') {
    out += "\\'";
  } else {
    out += c;
  }
}

// The length of `text`'s first `max_bytes`, backed up so no UTF-8 character is split.
size_t cut_at(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text.size();
  size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return cut;
}

std::string escape(std::string_view text, size_t max_bytes, bool escape_quote) {
  size_t keep = cut_at(text, max_bytes);
  std::string out;
  out.reserve(keep + 16);
  for (size_t i = 0; i < keep; ++i) append_escaped(out, text[i], escape_quote);
  if (keep < text.size()) out += "…(" + std::to_string(text.size()) + " bytes)";
  return out;
}

}  // namespace

std::string escape_text(std::string_view text, size_t max_bytes) {
  return escape(text, max_bytes, false);
}

std::string quote_value(std::string_view value, size_t max_bytes) {
  return "'" + escape(value, max_bytes, true) + "'";
}

}  // namespace tc
