#include "pipeline/package/manifest_quote.h"

namespace tc::package {

std::string hls_quoted(std::string_view name, std::string_view value) {
  std::string out(name);
  out += "=\"";
  for (char c : value) {
    auto byte = static_cast<unsigned char>(c);
    out += c == '"' ? '\'' : (byte < 0x20 || byte == 0x7f) ? ' ' : c;
  }
  return out + "\"";
}

std::string xml_text(std::string_view text) {
  std::string out;
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      case '\t':
        out += "&#9;";
        break;
      case '\n':
        out += "&#10;";
        break;
      case '\r':
        out += "&#13;";
        break;
      default:
        out += byte < 0x20 || byte == 0x7f ? ' ' : c;
    }
  }
  return out;
}

std::string xml_attribute(std::string_view name, std::string_view value) {
  return " " + std::string(name) + "=\"" + xml_text(value) + "\"";
}

}  // namespace tc::package
