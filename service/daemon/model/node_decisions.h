// The node-level decisions a job runs under, made once by the daemon and handed to its worker:
// the node's settings (from its configuration at start, the same for every job; a worker's
// process is started and confined with them before any job reaches it: worker_process.h) and
// where this job runs (the dispatcher's placement, on the job's line: worker_protocol.h). The
// worker runs the job with them and decides none of them again: it neither reads a setting of
// its own nor chooses a backend.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pipeline/spec/job_spec.h"

namespace tc::daemon {

struct NodeSettings {
  long long memory_mb = 0;               // worker_memory_mb: RLIMIT_AS; 0 = unlimited
  long long max_pixels = 0;              // max_pixels: source frame size cap; 0 = none
  std::vector<std::string> media_roots;  // media_root: all a job opens is below these
  std::vector<std::string> protocols;    // allow_protocol: network input protocols
  bool landlock = false;                 // worker_landlock: confined to the roots (landlock.h)
  int gop_parallel = 0;                  // gop_parallel: libx264 encoders per output; 0 = auto
  std::string gpu_cache;                 // the GPU kernel cache (gpu_cache.h); empty: the drivers'
  // The node's devices, discovered once at start (hw/inventory_json.h): the worker plans with
  // them instead of probing every device again. Empty: it discovers.
  std::string devices_json;

  bool operator==(const NodeSettings&) const = default;
};

// Where a job runs: the backend and device tc::choose_backend picks over the node's inventory,
// and why (the plan's backend_reason, as the report shows it).
struct Placement {
  BackendKind backend = BackendKind::kSoftware;
  std::string device_path;  // empty for software
  std::string reason;       // "requested", "auto: VA-API GPU /dev/dri/renderD128 (i915)"

  bool operator==(const Placement&) const = default;
};

struct NodeDecisions {
  NodeSettings node;
  // The scheduler's device the job holds a slot on (its index and name), and what it knows of
  // it: the CUDA ordinal NVML samples it by (discovery's, HwDevice::ordinal).
  int device_index = 0;
  std::string device_name;
  BackendKind device_backend = BackendKind::kSoftware;
  std::string device_path;
  std::optional<unsigned> cuda_ordinal;
  // Unset when no device of this node can run the job (a backend it lacks) and it took a
  // software slot: its worker plans it as submitted and the planner refuses it, saying why.
  std::optional<Placement> placement;
};

}  // namespace tc::daemon
