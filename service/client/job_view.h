// How the client shows jobs: the proto back into the pipeline's structs (so the daemon's result
// prints exactly as `transcode run` prints its own), one-line summaries, JSON, and exit codes.
#pragma once

#include <grpcpp/support/status.h>

#include <cstdio>
#include <string>

#include "pipeline/exec/executor.h"
#include "pipeline/metrics/engine_usage.h"
#include "transcode/v1/transcoder.pb.h"

namespace tc::client {

namespace pb = ::transcode::v1;

JobReport report_from_proto(const pb::JobResult& result);
Progress progress_from_proto(const pb::Progress& progress);
metrics::EngineUsage engines_from_proto(const pb::EngineUsage& engines);
// The report as `transcode run` prints it, plus the daemon's engine line.
std::string result_text(const pb::JobResult& result);

std::string state_label(pb::JobState state);  // "queued", "running", ...
// "j-0123  running  attempt 1  42%  /media/in.mp4"; a queued job held back for a node has a
// second line, indented under its state: "waiting: <its waiting_reason>".
std::string job_line(const pb::Job& job);
// Several lines: state, times, device, error or per-output result.
std::string job_details(const pb::Job& job);
std::string to_json(const google::protobuf::Message& message);
// The same on one line, ending in a newline: the last line of a JSON line stream.
std::string to_json_line(const google::protobuf::Message& message);

// "capacity 3 more, load 25%, a job ~0.50 cores" (GPUs: "... ~0.10 cores, 20% engine"): the
// load model's figures, as a Device (caps) and a NodeDevice (nodes) both carry them.
template <typename DeviceMessage>
std::string capacity_text(const DeviceMessage& d) {
  char text[128];
  std::snprintf(text, sizeof text, "capacity %d more, load %.0f%%, a job ~%.2f cores", d.capacity(),
                d.load_percent(), d.job_cores());
  std::string line = text;
  if (d.job_engine_percent() > 0) {
    std::snprintf(text, sizeof text, ", %.0f%% engine", d.job_engine_percent());
    line += text;
  }
  return line;
}

bool is_terminal(pb::JobState state);
// The process exit code for a job's outcome (service/common/exit_codes.h).
int exit_code_for_job(const pb::Job& job);
// Prints "transcode: CODE: message" and returns the exit code for an RPC failure.
int rpc_failure(const grpc::Status& status);

}  // namespace tc::client
