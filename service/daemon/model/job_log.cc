#include "service/daemon/model/job_log.h"

#include <array>

#include "pipeline/core/text_field.h"
#include "pipeline/core/user_text.h"

namespace tc::daemon {
namespace {

constexpr std::array<std::string_view, 4> kLevelNames = {"error", "warning", "info", "debug"};

// Every byte that does not start or continue a well-formed character becomes U+FFFD.
std::string valid_utf8(std::string_view text) {
  std::string out;
  for (size_t bad = invalid_utf8_at(text); bad != std::string_view::npos;
       bad = invalid_utf8_at(text)) {
    out.append(text.substr(0, bad));
    out += "\xEF\xBF\xBD";
    text.remove_prefix(bad + 1);
  }
  out.append(text);
  return out;
}

}  // namespace

std::string_view level_name(LogLevel level) {
  return kLevelNames[static_cast<size_t>(level)];
}

std::optional<LogLevel> parse_level(std::string_view name) {
  for (size_t i = 0; i < kLevelNames.size(); ++i)
    if (kLevelNames[i] == name) return static_cast<LogLevel>(i);
  return std::nullopt;
}

bool LogHead::take(const JobLogLine& line) {
  int64_t size = static_cast<int64_t>(line.text.size());
  closed = closed || line.seq != lines || lines >= kLogHeadLines || bytes + size > kLogSideBytes;
  if (closed) return false;
  ++lines;
  bytes += size;
  return true;
}

JobLog job_log_of(std::vector<JobLogLine> lines) {
  JobLog log;
  for (size_t i = 0; i < lines.size(); ++i) {
    bool first = i == 0 || lines[i - 1].attempt != lines[i].attempt;
    int64_t expected = first ? 0 : lines[i - 1].seq + 1;
    log.truncated = log.truncated || lines[i].seq != expected;
  }
  log.lines = std::move(lines);
  return log;
}

std::string log_text(std::string_view raw) {
  std::string escaped = escape_text(valid_utf8(raw), std::string::npos);
  if (escaped.size() <= kLogLineBytes) return escaped;
  std::string marker = "…(cut: " + std::to_string(escaped.size()) + " bytes)";
  return cut_text(escaped, kLogLineBytes - marker.size()) + marker;
}

}  // namespace tc::daemon
