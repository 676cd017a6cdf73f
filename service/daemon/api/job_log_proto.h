// A job's own log (model/job_log.h) as GetJobLogs answers it.
#pragma once

#include "service/daemon/model/job_log.h"
#include "transcode/v1/transcoder.pb.h"

namespace tc::daemon {

void job_log_to_proto(const JobLog& log, ::transcode::v1::GetJobLogsResponse* out);

}  // namespace tc::daemon
