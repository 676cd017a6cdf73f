// What a worker writes on its stdout, one JSON object a line:
//   {"ready": {}}             once, its process set up (limits, sandbox, libraries, device)
//   {"progress": <to_json(Progress)>}                                  about every 0.5 s
//   {"publish": {}}                          once, every output complete: may it rename them?
//   {"result": <to_json(JobReport)>}                                   once, on success
//   {"error": {"code": "input", "message": "...", "retryable": false}}  once, on failure
//   {"log": {"level": "warning", "text": "...", "time_ms": 1733440000123}}  a line of the job's
//                                         own log (model/job_log.h), any time, in log_text form
// Lines are the whole protocol: a worker that dies mid-line or writes nothing is judged by its
// exit status instead (worker_process.h). The worker encodes with worker_line, the daemon
// decodes with parse_worker_line: the only two places these lines are touched.
//
// Its stdin carries the job as the first line, once the daemon has one for it (a warm worker
// waits there, ready: worker_pool.h), then, once it has asked to publish, the daemon's answer:
//   {"job": {"attempt": 1, "id": "...", "spec": <job_spec_to_json>,
//            "placement": {"backend": "vaapi", "device": "/dev/dri/renderD128", "reason": "..."}}}
//   {"publish": {"allowed": true}}
//   {"publish": {"allowed": false, "error": {"code": ..., "message": ..., "retryable": ...}}}
// encoded by publish_answer_line and read by parse_publish_answer.
#pragma once

#include <istream>
#include <optional>
#include <string>
#include <string_view>

#include "pipeline/core/status.h"
#include "pipeline/exec/report.h"
#include "pipeline/spec/job_spec.h"
#include "service/daemon/model/job_log.h"
#include "service/daemon/model/node_decisions.h"

namespace tc::daemon {

struct WorkerMessage {
  enum class Kind { kReady, kProgress, kPublish, kResult, kError, kLog } kind = Kind::kProgress;
  Progress progress;  // kProgress
  JobReport report;   // kResult
  Status error;       // kError: never ok
  JobLogLine log;     // kLog: its level, time and text (log_text's form, however it was sent)
};

// Errors travel as tc::code_key() names (pipeline/core/status.h).
std::string worker_line(const Progress& progress);
std::string worker_line(const JobReport& report);
std::string worker_line(const Status& error);
// `line`'s level, time and text (its attempt and seq are the daemon's to set).
std::string worker_line(const JobLogLine& line);
// {"publish": {}}: the worker asks whether it may publish its complete outputs.
std::string publish_request_line();
// {"ready": {}}: the worker is set up and waits for its job.
std::string ready_line();

// The job a worker runs: its spec and the daemon's attempt at it (in its temp names).
struct WorkerJob {
  JobSpec spec;
  int attempt = 0;
  std::string id;  // the job's id, for the worker's log lines (worker_log.h); may be empty
  // Where it runs, as the dispatcher placed it (node_decisions.h); absent: planned as submitted.
  std::optional<Placement> placement;
};
std::string job_line(const WorkerJob& job);
// kInvalidArgument naming what is wrong (a spec that does not validate says why).
Result<WorkerJob> parse_job_line(std::string_view line);

// kInternal naming the problem for a line that is not JSON, not one of the three, or whose
// content does not read back.
Result<WorkerMessage> parse_worker_line(std::string_view line);

// The daemon's answer to a publish request: ok allows; any other status refuses with it.
std::string publish_answer_line(const Status& answer);
// The answer a line carries (ok: publish). A line that does not read is a refusal too
// (kInternal naming the problem): only a clear yes publishes.
Status parse_publish_answer(std::string_view line);
// The worker's side: the next line of `in` (its stdin), parsed. Its end, the daemon gone, or a
// read interrupted, is a refusal.
Status read_publish_answer(std::istream& in);

}  // namespace tc::daemon
