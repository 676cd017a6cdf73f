// Landlock (Linux 5.13+) for a worker: defence in depth under the confinement by construction of
// pipeline/io. Even a decoder bug that runs code in the worker cannot open a file outside the
// media roots and the system directories libraries read. Landlock needs no privilege and no
// namespace, and a process cannot lift it once applied.
#pragma once

#include <string>
#include <vector>

#include "pipeline/core/status.h"

namespace tc::daemon {

// The Landlock ABI version the kernel offers; 0 with `why` set when it offers none (an old
// kernel, or Landlock not in the kernel's LSM list).
int landlock_abi(std::string* why = nullptr);

struct LandlockPaths {
  // the media roots (inputs, outputs and their temp files) and the GPU kernel cache
  std::vector<std::string> read_write;
  // libraries, the files of /etc they read (never all of /etc: secrets live there), /proc, /sys
  std::vector<std::string> read_only;
  std::vector<std::string> devices;  // /dev: render nodes and NVIDIA's nodes are opened rw
  // /proc/self, which is the process's own /proc/PID once opened: its files may be written too
  // (a thread's name, task/TID/comm; CUDA's cuInit fails without this).
  std::vector<std::string> own_process;
};

// What a worker needs besides its roots: the system directories that exist on this host, and
// `gpu_cache` (worker_main.h, --gpu-cache) read-write when one is named.
LandlockPaths worker_landlock_paths(const std::vector<std::string>& media_roots,
                                    const std::string& gpu_cache = "");

// Restricts this process (and its future children) to `paths`, for good. A path that does not
// exist is skipped. kUnsupported when the kernel has no Landlock; kInternal when a call fails.
Status apply_landlock(const LandlockPaths& paths);

}  // namespace tc::daemon
