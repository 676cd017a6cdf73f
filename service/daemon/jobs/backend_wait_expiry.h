// The end of a wait for a capable node (backend_wait.h): at each beat, the queued jobs whose
// backend no live node has offered for `capable_node_wait` fail, naming the backend. Every node
// does it; the row's expected state (QUEUED, its attempt) lets one write each end.
#pragma once

#include "pipeline/core/status.h"
#include "service/daemon/jobs/cluster_membership.h"

namespace tc::daemon {

// An error: the store could not be read.
Status fail_jobs_past_backend_wait(const ClusterParts& parts);

}  // namespace tc::daemon
