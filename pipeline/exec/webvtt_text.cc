#include "pipeline/exec/webvtt_text.h"

#include <cstdint>
#include <string>

namespace tc {

std::string escape_ass_text_for_webvtt(std::string_view ass) {
  constexpr int kFieldsBeforeText = 8;
  std::string out;
  out.reserve(ass.size() + 16);
  int commas = 0;
  bool in_override = false;
  for (char c : ass) {
    if (commas < kFieldsBeforeText) {
      if (c == ',') ++commas;
      out += c;
      continue;
    }
    if (c == '{') in_override = true;
    if (c == '}') in_override = false;
    if (!in_override && c == '&')
      out += "&amp;";
    else if (!in_override && c == '<')
      out += "&lt;";
    else if (!in_override && c == '>')
      out += "&gt;";
    else
      out += c;
  }
  if (commas == kFieldsBeforeText) return out;
  // Not an event line: all of it is text.
  return escape_ass_text_for_webvtt(",,,,,,,," + std::string(ass)).substr(kFieldsBeforeText);
}

bool ends_before_start(const AVSubtitle& subtitle) {
  // end_display_time is uint32_t: a negative end reads as more than INT32_MAX (596 hours).
  // An end of 0 means "until the next event" (bitmap formats), not an end before the start.
  if (subtitle.end_display_time > uint32_t(INT32_MAX)) return true;
  return subtitle.end_display_time != 0 && subtitle.end_display_time < subtitle.start_display_time;
}

}  // namespace tc
