#include "service/daemon/model/attempt_usage.h"

namespace tc::daemon {

double busy_engine_seconds(const metrics::EngineBusy& busy, double interval_s) {
  return busy.busy_percent / 100 * busy.capacity * interval_s;
}

ResourceSeconds measured_usage(const metrics::EngineUsage& average) {
  ResourceSeconds usage;
  usage[kCpuResource] = average.cpu_cores * average.interval_s;
  if (!average.available) return usage;
  for (const metrics::EngineBusy& busy : average.engines)
    usage[busy.engine] += busy_engine_seconds(busy, average.interval_s);
  return usage;
}

void add_usage(ResourceSeconds& total, const ResourceSeconds& more) {
  for (const auto& [resource, seconds] : more) total[resource] += seconds;
}

}  // namespace tc::daemon
