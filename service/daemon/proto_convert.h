// Daemon records <-> transcode.v1 messages. JobConfig goes through JSON both ways: its field
// names are the job spec's keys, so tc::job_spec_from_json stays the one parser of a spec.
#pragma once

#include <string>

#include "pipeline/core/status.h"
#include "pipeline/hw/devices.h"
#include "pipeline/spec/job_spec.h"
#include "service/daemon/job_record.h"
#include "service/daemon/scheduler.h"
#include "transcode/v1/transcoder.pb.h"

namespace tc::daemon {

namespace pb = ::transcode::v1;

Result<JobSpec> spec_from_config(const pb::JobConfig& config);
void config_from_spec_json(const std::string& spec_json, pb::JobConfig* config);
void job_to_proto(const JobRecord& job, pb::Job* out);
pb::JobState state_to_proto(JobState state);
std::optional<JobState> state_from_proto(pb::JobState state);
void capabilities_to_proto(const HwInventory& inventory, const std::vector<SchedDevice>& devices,
                           pb::Capabilities* out);

}  // namespace tc::daemon
