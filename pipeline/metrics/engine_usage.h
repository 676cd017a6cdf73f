// What a job used of the machine's engines: busy % per GPU engine class (from DRM fdinfo, or
// NVML for cuda), peak GPU memory and CPU cores. The same shape serves a live event (the last
// sampling interval) and the report (the average over the job). Its JSON keys are the field
// names of transcode.v1.EngineUsage, so the daemon's stored report reads straight into the proto.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace tc::metrics {

struct EngineBusy {
  std::string
      engine;  // "render", "video", "video-enhance", "copy", "compute"; cuda: "nvdec", "nvenc"
  std::string label;        // for people: "video (decode+encode)"
  double busy_percent = 0;  // of the class's capacity: 100 = every engine of the class busy
  unsigned capacity = 1;    // engines of the class
};

struct EngineUsage {
  std::string source;  // "drm-fdinfo", "nvml"; empty when not available
  std::string driver;  // "i915", "xe", "nvidia"
  bool available = false;
  std::string unavailable_reason;  // "not available: <why>" whenever !available; never 0 %
  std::vector<EngineBusy> engines;
  int64_t memory_total_peak_bytes = 0;     // drm-total-* summed over regions and clients
  int64_t memory_resident_peak_bytes = 0;  // drm-resident-*
  double cpu_cores = 0;                    // CPU seconds of the worker per wall second
  double interval_s = 0;                   // the wall time these figures cover
  int samples = 0;                         // reads of /proc (or NVML) they come from
};

nlohmann::json engine_usage_to_json(const EngineUsage& usage);
EngineUsage engine_usage_from_json(const nlohmann::json& json);  // missing keys stay default

// "video (decode+encode) 41.5%, render/3D 3.0% | mem 120 MiB | cpu 0.8 cores", or the reason.
std::string format_engine_usage(const EngineUsage& usage);

}  // namespace tc::metrics
