// DRM client usage stats (the kernel's Documentation/gpu/drm-usage-stats.rst): what one DRM file
// descriptor's /proc/PID/fdinfo/N says about the engine time and memory of its client. Pure
// text parsing; sampler.h reads the files and turns counters into busy percentages.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace tc::metrics {

// The engine classes users see. i915 names them (render, copy, video, video-enhance, compute),
// xe abbreviates them (rcs, bcs, vcs, vecs, ccs); both map here. A class neither driver
// documents keeps its own name.
std::string engine_class_name(std::string_view driver_key);  // "vcs" -> "video"
std::string engine_class_label(std::string_view name);       // "video" -> "video (decode+encode)"

struct EngineCounter {
  uint64_t busy = 0;          // i915: busy ns; xe: busy GPU cycles
  uint64_t total_cycles = 0;  // xe only: GPU timestamp cycles (the denominator)
  unsigned capacity = 1;      // engines of the class (drm-engine-capacity-*)
  bool cycles = false;        // true: xe cycles; false: i915 nanoseconds
};

struct DrmClient {
  std::string driver;  // drm-driver
  std::string pdev;    // drm-pdev, may be empty
  std::string client_id;
  std::map<std::string, EngineCounter> engines;  // by engine_class_name
  uint64_t memory_total = 0;                     // bytes: the sum of drm-total-<region>
  uint64_t memory_resident = 0;                  // bytes: the sum of drm-resident-<region>

  // Several fds can share one client (dup, fork): the sampler counts each key once.
  std::string key() const { return driver + "/" + pdev + "/" + client_id; }
};

// Parses one fdinfo text. nullopt when it is not a DRM client (no drm-driver or no
// drm-client-id). Lines that do not parse are skipped, never fatal.
std::optional<DrmClient> parse_fdinfo(std::string_view text);

// "24 KiB" -> 24576; "7 MiB"; "3" -> 3 bytes. nullopt for anything else.
std::optional<uint64_t> parse_memory_value(std::string_view value);

}  // namespace tc::metrics
