// The memory the daemon's workers may take together, against the cgroup it runs under.
//
// Since Kubernetes 1.28 (cgroup v2, memory.oom.group) an OOM kill in a pod ends every process of
// its cgroup: the daemon and every running job, not only the job that asked for too much.
// Admission counts CPU and engine load, not memory, so the daemon refuses at start a
// configuration whose jobs at once (every device's slots) times worker_memory_mb (each worker's
// RLIMIT_AS, docs/daemon.md) exceeds the memory.max it runs under: the operator then lowers
// `slots` or `worker_memory_mb`, or raises the limit, before a pod of it can be OOM-killed whole.
// An address-space cap bounds a worker's resident memory from above, so the check is
// conservative; with worker_memory_mb 0 (no cap, CUDA) nothing bounds a worker and no check is
// made.
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

// OK when jobs_at_once x worker_memory_mb MiB fits memory_max bytes, or either is unbounded;
// otherwise an InvalidArgument naming both numbers and the settings to change.
Status check_memory_budget(int jobs_at_once, long long worker_memory_mb,
                           std::optional<int64_t> memory_max);

}  // namespace tc::daemon
