// What a worker writes on its stdout, one JSON object a line:
//   {"progress": <to_json(Progress)>}                                  about every 0.5 s
//   {"result": <to_json(JobReport)>}                                   once, on success
//   {"error": {"code": "input", "message": "...", "retryable": false}}  once, on failure
// Lines are the whole protocol: a worker that dies mid-line or writes nothing is judged by its
// exit status instead (worker_process.h). The worker encodes with worker_line, the daemon
// decodes with parse_worker_line: the only two places these lines are touched.
#pragma once

#include <string>
#include <string_view>

#include "pipeline/core/status.h"
#include "pipeline/exec/report.h"

namespace tc::daemon {

struct WorkerMessage {
  enum class Kind { kProgress, kResult, kError } kind = Kind::kProgress;
  Progress progress;  // kProgress
  JobReport report;   // kResult
  Status error;       // kError: never ok
};

// Errors travel as tc::code_key() names (pipeline/core/status.h).
std::string worker_line(const Progress& progress);
std::string worker_line(const JobReport& report);
std::string worker_line(const Status& error);

// kInternal naming the problem for a line that is not JSON, not one of the three, or whose
// content does not read back.
Result<WorkerMessage> parse_worker_line(std::string_view line);

}  // namespace tc::daemon
