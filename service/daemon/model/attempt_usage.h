// What an attempt measurably used, the figure a tenant is billed for (docs/tenants.md, Usage):
// seconds per resource. One definition, here, for the job's record, the store's attempt_usage
// rows, the per-tenant counters and the node's engine totals alike.
#pragma once

#include <map>
#include <string>

#include "pipeline/metrics/engine_usage.h"

namespace tc::daemon {

// resource -> seconds. "cpu": CPU-seconds of the worker; an engine class ("video", "render",
// "video-enhance", "copy", "compute", "nvdec", "nvenc", ...): busy engine-seconds, the
// class's engines summed (two engines busy for 1 s: 2).
using ResourceSeconds = std::map<std::string, double>;

inline constexpr const char* kCpuResource = "cpu";

// Busy engine-seconds of one engine class over `interval_s`: busy_percent of the class's
// capacity, times its engines, times the interval.
double busy_engine_seconds(const metrics::EngineBusy& busy, double interval_s);

// The attempt's use from its sampler's average over the run (JobSampler::average), whatever
// the attempt's outcome: "cpu" = cpu_cores * interval_s (the worker's CPU time read from /proc
// between its start and its last sample), and each engine class's busy_engine_seconds when
// engine figures were available. Always holds "cpu" (0 when no sample was taken). The report's
// own cpu_s is not used: a failed, cancelled or crashed attempt has no report, and one
// definition must serve every outcome.
ResourceSeconds measured_usage(const metrics::EngineUsage& average);

// Adds `more` into `total`, resource by resource.
void add_usage(ResourceSeconds& total, const ResourceSeconds& more);

}  // namespace tc::daemon
