// A worker's seccomp filter: the system calls that no transcode needs and that widen what a
// compromised decoder could reach - tracing or reading other processes, mounts and namespaces,
// kernel modules, keyrings, BPF, perf, userfaultfd, io_uring (whose operations bypass the
// filter), handles that open files by inode - fail with EPERM. Everything else is allowed: the
// filter narrows the kernel's surface, while Landlock and the roots confine the files.
#pragma once

#include "pipeline/core/status.h"

namespace tc::daemon {

// Installs the filter on the calling thread (with no_new_privs already set); threads it starts
// later inherit it. kUnsupported on an architecture the filter was not written for.
Status apply_worker_seccomp();

}  // namespace tc::daemon
