// transcode.v1.JobConfig <-> tc::JobSpec, field by field: the one conversion, used by the daemon
// at its RPC edge and by the `transcode` client when it submits. JobConfig's fields are the
// spec's; an enum arrives by name and an unknown name is an error naming its field.
#pragma once

#include "pipeline/core/status.h"
#include "pipeline/spec/job_spec.h"
#include "transcode/v1/job.pb.h"

namespace tc {

Result<JobSpec> spec_from_config(const ::transcode::v1::JobConfig& config);
void config_from_spec(const JobSpec& spec, ::transcode::v1::JobConfig* config);

}  // namespace tc
