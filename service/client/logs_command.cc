// `transcode logs ID [--attempt N] [--json]`: a job's own log (GetJobLogs), oldest first, a line
// each: "attempt 1 12:00:01.123 warning: text", the time in this machine's local time.
#include <google/protobuf/util/time_util.h>

#include <time.h>

#include <cstdio>
#include <iostream>

#include "service/client/commands.h"
#include "service/client/job_view.h"
#include "service/common/exit_codes.h"
#include "transcode/v1/transcoder.grpc.pb.h"

namespace tc::client {
namespace {

namespace pb = ::transcode::v1;
using google::protobuf::util::TimeUtil;

// "12:00:01.123", local time.
std::string clock_text(const google::protobuf::Timestamp& when) {
  int64_t ms = TimeUtil::TimestampToMilliseconds(when);
  time_t seconds = static_cast<time_t>(ms / 1000);
  tm local{};
  localtime_r(&seconds, &local);
  char text[32];
  std::snprintf(text, sizeof text, "%02d:%02d:%02d.%03d", local.tm_hour, local.tm_min, local.tm_sec,
                static_cast<int>(ms % 1000));
  return text;
}

}  // namespace

int logs_command(const LogsArgs& args, const Connection& connection) {
  grpc::ClientContext context;
  prepare_context(context, connection);
  pb::GetJobLogsRequest request;
  request.set_id(args.id);
  request.set_attempt(args.attempt);
  pb::GetJobLogsResponse logs;
  grpc::Status status =
      pb::Transcoder::NewStub(make_channel(connection))->GetJobLogs(&context, request, &logs);
  if (!status.ok()) return rpc_failure(status);
  if (args.json) {
    std::cout << to_json(logs);
    return kExitOk;
  }
  // The daemon's text is one line already (no newline, control characters escaped).
  for (const pb::JobLogLine& line : logs.lines())
    std::cout << "attempt " << line.attempt() << " " << clock_text(line.time()) << " "
              << line.level() << ": " << line.text() << "\n";
  if (logs.truncated())
    std::cerr << "transcode logs: lines were dropped from the middle (an attempt keeps its first "
                 "500 and its last 500 lines)\n";
  return kExitOk;
}

}  // namespace tc::client
