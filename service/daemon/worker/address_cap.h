#pragma once

#include "pipeline/spec/job_spec.h"

namespace tc::daemon {

// A worker's address-space cap (`worker_memory_mb`) is RLIMIT_AS's soft limit; the hard limit
// stays as the worker found it, so that one job can lift the cap.
//
// CUDA cannot start under the cap: cuInit reserves the GPU's unified virtual address range
// (far more address space than memory) and fails with CUDA_ERROR_OUT_OF_MEMORY under the
// 8192 MiB default, so every cuda job of a daemon with defaults failed (tests/gpu/RESULTS.md).
// A job the dispatcher placed on a CUDA device therefore runs uncapped, and its worker ends after
// it, so that no later job of that worker runs without the cap.

// Sets the soft limit to `mib` MiB (nothing when `mib` <= 0).
void cap_address_space(long long mib);

// Lifts the cap for a job that cannot run under it; true when a cap was lifted (the worker must
// then end after this job).
bool lift_address_cap_for(const JobSpec& placed);

}  // namespace tc::daemon
