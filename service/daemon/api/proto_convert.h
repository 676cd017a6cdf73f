// Daemon records <-> transcode.v1 messages, field by field from the typed values: the RPC edge
// of the daemon. JobConfig's fields are the job spec's; result.report_json is written here, once,
// from the typed report.
#pragma once

#include <string>

#include "pipeline/core/status.h"
#include "pipeline/hw/devices.h"
#include "pipeline/spec/job_spec.h"
#include "service/api/job_config.h"
#include "service/daemon/model/job_record.h"
#include "service/daemon/model/node_record.h"
#include "service/daemon/policy/scheduler.h"
#include "transcode/v1/transcoder.pb.h"

namespace tc::daemon {

namespace pb = ::transcode::v1;

void job_to_proto(const JobRecord& job, pb::Job* out);
// The same Job in protobuf's JSON mapping: the body of a webhook (README, Webhooks).
std::string job_json(const JobRecord& job);
pb::JobState state_to_proto(JobState state);
std::optional<JobState> state_from_proto(pb::JobState state);
void capabilities_to_proto(const HwInventory& inventory, const std::vector<SchedDevice>& devices,
                           pb::Capabilities* out);
void node_to_proto(const NodeRecord& node, pb::Node* out);

}  // namespace tc::daemon
