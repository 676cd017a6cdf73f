// The outbox row for a state change of a job with a webhook (notification.h): made by the job
// manager when it stores the change, from the Job JSON the API layer renders.
#pragma once

#include <functional>
#include <string>

#include "service/daemon/model/job_record.h"
#include "service/daemon/model/notification.h"

namespace tc::daemon {

// The Job as the API returns it, as JSON (proto_convert.h's job_json).
using JobJson = std::function<std::string(const JobRecord&)>;

// A notice of `job`'s current state, due now, with a fresh random delivery id.
Notification notice_of(const JobRecord& job, std::string body);

}  // namespace tc::daemon
