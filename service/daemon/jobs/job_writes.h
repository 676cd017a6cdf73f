// A job's state change as the store takes it: with its webhook notice in the same transaction
// (README, Webhooks) when the job has a webhook and webhooks are on.
#pragma once

#include <optional>

#include "service/daemon/model/job_record.h"
#include "service/daemon/store/job_queue.h"
#include "service/daemon/webhook/webhook_notice.h"

namespace tc::daemon {

// Writes `job` provided its row is as `expected` says; false when another writer (a node that
// took the job over, a cancel, a claim) moved it on first.
Result<bool> save_job(JobQueue& jobs, const JobJson& webhook_body, const JobRecord& job,
                      const std::optional<RowState>& expected);

}  // namespace tc::daemon
