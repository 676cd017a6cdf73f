// How the client shows jobs: the proto back into the pipeline's structs (so the daemon's result
// prints exactly as `transcode run` prints its own), one-line summaries, JSON, and exit codes.
#pragma once

#include <grpcpp/support/status.h>

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
// "j-0123  running  attempt 1  42%  /media/in.mp4"
std::string job_line(const pb::Job& job);
// Several lines: state, times, device, error or per-output result.
std::string job_details(const pb::Job& job);
std::string to_json(const google::protobuf::Message& message);

bool is_terminal(pb::JobState state);
// The process exit code for a job's outcome (service/common/exit_codes.h).
int exit_code_for_job(const pb::Job& job);
// Prints "transcode: CODE: message" and returns the exit code for an RPC failure.
int rpc_failure(const grpc::Status& status);

}  // namespace tc::client
