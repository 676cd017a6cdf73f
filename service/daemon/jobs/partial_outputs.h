// The temp files (`.NAME.aN.partial`: io::partial_name) an attempt leaves below the media roots
// when it does not publish. Its worker removes them as it ends, and its job thread once more;
// at start the daemon tries again for every failed and cancelled job it keeps, with the access
// it has then (a folder read-only to the worker, an unlink that failed): one left for good
// would look like a job's leftovers. Each one that cannot be removed is logged with why.
#pragma once

#include <string>
#include <vector>

#include "pipeline/spec/job_spec.h"
#include "service/daemon/store/job_queue.h"

namespace tc::daemon {

// Removes the partial outputs attempt `attempt` of a job may have left below the media roots,
// and no other attempt's.
void remove_partial_outputs(const JobSpec& spec, int attempt,
                            const std::vector<std::string>& media_roots);

// The partial outputs of every failed and cancelled job in `jobs`.
Status remove_ended_partials(JobQueue& jobs, const std::vector<std::string>& media_roots);

}  // namespace tc::daemon
