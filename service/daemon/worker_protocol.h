// What a worker writes on its stdout, one JSON object a line:
//   {"progress": <tc::progress_to_json>}                       about every 0.5 s
//   {"result": <tc::report_to_json>}                            once, on success
//   {"error": {"code": "input", "message": "...", "retryable": false}}  once, on failure
// Lines are the whole protocol: a worker that dies mid-line or writes nothing is judged by its
// exit status instead (worker_process.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "pipeline/core/status.h"
#include "pipeline/exec/executor.h"

namespace tc::daemon {

// Errors travel as tc::code_key() names (pipeline/core/status.h).
std::string progress_line(const Progress& progress);
std::string result_line(const JobReport& report);
std::string error_line(const Status& status);

struct WorkerMessage {
  enum class Kind { kProgress, kResult, kError } kind = Kind::kProgress;
  Progress progress;
  std::string report_json;  // compact
  Status error;
};

// kInternal for a line that is not one of the three.
Result<WorkerMessage> parse_worker_line(std::string_view line);

// Progress as JSON and back (the store keeps the last progress of a job). Reading tolerates
// missing keys: a field the writer did not know stays 0.
std::string progress_json(const Progress& progress);
Progress progress_from_json(std::string_view json);

}  // namespace tc::daemon
