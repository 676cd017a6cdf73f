#include "service/daemon/api/job_log_proto.h"

#include <google/protobuf/util/time_util.h>

namespace tc::daemon {

void job_log_to_proto(const JobLog& log, ::transcode::v1::GetJobLogsResponse* out) {
  for (const JobLogLine& line : log.lines) {
    ::transcode::v1::JobLogLine* to = out->add_lines();
    to->set_attempt(line.attempt);
    *to->mutable_time() = google::protobuf::util::TimeUtil::MillisecondsToTimestamp(line.time_ms);
    to->set_level(std::string(level_name(line.level)));
    to->set_text(line.text);
  }
  out->set_truncated(log.truncated);
}

}  // namespace tc::daemon
