// A job's own log: its worker's messages (libav's warnings and errors among them), kept with the
// job in the store (store/job_logs.h) and read by GetJobLogs and `transcode logs`. Bounded per
// attempt, because a corrupt source can make a decoder log a line per packet for hours: the
// first lines (what went wrong first) and the last ones (how it ended) are kept, the middle is
// dropped and the read says so (truncated).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tc::daemon {

enum class LogLevel { kError, kWarning, kInfo, kDebug };

// "error", "warning", "info", "debug": the names the API and the worker protocol carry.
std::string_view level_name(LogLevel level);
std::optional<LogLevel> parse_level(std::string_view name);

// The bound of one attempt's log: its first kLogHeadLines lines while they hold no more than
// kLogSideBytes, and its last kLogTailLines lines within kLogSideBytes: at most 1000 lines,
// 256 KiB. A line holds at most kLogLineBytes.
inline constexpr int kLogHeadLines = 500;
inline constexpr int kLogTailLines = 500;
inline constexpr int64_t kLogSideBytes = 128 * 1024;
inline constexpr size_t kLogLineBytes = 4096;

struct JobLogLine {
  int attempt = 0;
  int64_t seq = 0;      // the line's place in its attempt's log, from 0, gaps where dropped
  int64_t time_ms = 0;  // when the worker said it, on its node's clock (Unix ms)
  LogLevel level = LogLevel::kWarning;
  std::string text;  // log_text's form
};

struct JobLog {
  std::vector<JobLogLine> lines;  // by attempt, then seq
  bool truncated = false;         // an attempt's middle lines were dropped
};

// What an attempt's stored head holds: the lines that are never dropped. A line joins it while
// every earlier line did (no gap: seq == lines) and it stays within kLogHeadLines and
// kLogSideBytes; once one does not, the head is closed and every later line is the tail's.
struct LogHead {
  int64_t lines = 0;
  int64_t bytes = 0;
  bool closed = false;
  bool take(const JobLogLine& line);  // true: `line` joins the head (counted)
};

// `lines` (by attempt, then seq) as a log: truncated where an attempt's seqs have a gap.
JobLog job_log_of(std::vector<JobLogLine> lines);

// `raw` as a stored line: invalid UTF-8 replaced by U+FFFD, control characters (a newline of a
// user's file name, NUL) escaped as pipeline/core/user_text.h writes them, cut to kLogLineBytes
// at a character boundary and marked "…(cut: N bytes)". Text already in this form is unchanged.
std::string log_text(std::string_view raw);

}  // namespace tc::daemon
