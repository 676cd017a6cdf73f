// The memory the daemon's workers may take together, against the cgroup it runs under.
//
// Since Kubernetes 1.28 (cgroup v2, memory.oom.group) an OOM kill in a pod ends every process of
// its cgroup: the daemon and every running job, not only the job that asked for too much. So
// memory is one of admission's resources: the node runs at most memory.max / worker_memory_mb
// jobs at once (each worker's RLIMIT_AS, docs/daemon.md), across its devices, whatever their
// slots say; the daemon logs that cap where it is below the slots. Capping rather than refusing
// keeps the defaults starting on any machine (a 16-core node's 32 default slots x 8 GiB exceed
// a 128 GiB limit). Only a limit that holds not one worker is refused at start. An
// address-space cap bounds a worker's resident memory from above, so the cap is conservative;
// with worker_memory_mb 0 (no cap) nothing bounds a worker and memory caps nothing. A job placed
// on CUDA runs without the address-space cap (address_cap.h) and is counted as one worker.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "pipeline/core/status.h"

namespace tc::daemon {

// The lowest memory.max of this process's cgroup v2 and its ancestors, in bytes: the cgroup is
// the "0::PATH" line of proc_root/self/cgroup ("/" where it has none, as in a container's own
// cgroup namespace), read under cgroup_root. nullopt when none is set ("max" or no such file:
// cgroup v1, no limit).
std::optional<int64_t> cgroup_memory_max(const std::string& cgroup_root,
                                         const std::string& proc_root);

// The jobs at once memory_max bytes hold at worker_memory_mb MiB each, rounded down; none when
// either is unbounded. An InvalidArgument naming both numbers when not one worker fits.
Result<std::optional<int>> memory_job_cap(long long worker_memory_mb,
                                          std::optional<int64_t> memory_max);

}  // namespace tc::daemon
