// The GPU kernel cache a daemon's workers share. GPU drivers compile kernels when a job first
// uses them (CUDA JIT-compiles the PTX of FFmpeg's CUDA filters; Mesa compiles Vulkan shaders)
// and keep the result on disk, by default under $HOME, which Landlock keeps a worker from
// opening: every job then compiled them again. On the H200, 48 cuda jobs took 32-38 s under
// Landlock against 14 s without it, and 14 s under Landlock with this cache (bench/README.md,
// "Landlock and CUDA"). The daemon makes the cache beside its job database; each worker points
// its drivers at it before it opens a device, and its Landlock rules let it write there. A job
// that subverted its worker could write a kernel a later job loads, but such a worker may
// already write every output under the media roots: the cache adds no reach across jobs.
#pragma once

#include <string>

#include "pipeline/core/status.h"

namespace tc::daemon {

// A driver's variable naming its cache, and the cache's folder for it.
struct GpuCacheVariable {
  const char* name;
  const char* folder;
};
inline constexpr GpuCacheVariable kGpuCacheVariables[] = {{"CUDA_CACHE_PATH", "cuda"},
                                                          {"MESA_SHADER_CACHE_DIR", "mesa"}};

// Makes `dir` and a folder per driver, this user's alone (0700). kInternal naming the path.
Status make_gpu_cache(const std::string& dir);
// Points this process's GPU drivers at `dir`'s folders. setenv: call it before a device is
// opened and before a second thread starts.
void use_gpu_cache(const std::string& dir);

}  // namespace tc::daemon
