#include "pipeline/metrics/engine_usage.h"

#include <cstdio>

namespace tc::metrics {

using nlohmann::json;

json engine_usage_to_json(const EngineUsage& usage) {
  json engines = json::array();
  for (const EngineBusy& e : usage.engines)
    engines.push_back({{"engine", e.engine},
                       {"label", e.label},
                       {"busy_percent", e.busy_percent},
                       {"capacity", e.capacity}});
  return json{{"source", usage.source},
              {"driver", usage.driver},
              {"available", usage.available},
              {"unavailable_reason", usage.unavailable_reason},
              {"engines", engines},
              {"memory_total_peak_bytes", usage.memory_total_peak_bytes},
              {"memory_resident_peak_bytes", usage.memory_resident_peak_bytes},
              {"cpu_cores", usage.cpu_cores},
              {"interval_s", usage.interval_s},
              {"samples", usage.samples}};
}

EngineUsage engine_usage_from_json(const json& j) {
  EngineUsage usage;
  if (!j.is_object()) return usage;
  usage.source = j.value("source", "");
  usage.driver = j.value("driver", "");
  usage.available = j.value("available", false);
  usage.unavailable_reason = j.value("unavailable_reason", "");
  if (j.contains("engines") && j["engines"].is_array())
    for (const json& e : j["engines"])
      if (e.is_object())
        usage.engines.push_back({e.value("engine", ""), e.value("label", ""),
                                 e.value("busy_percent", 0.0), e.value("capacity", 1u)});
  usage.memory_total_peak_bytes = j.value("memory_total_peak_bytes", int64_t{0});
  usage.memory_resident_peak_bytes = j.value("memory_resident_peak_bytes", int64_t{0});
  usage.cpu_cores = j.value("cpu_cores", 0.0);
  usage.interval_s = j.value("interval_s", 0.0);
  usage.samples = j.value("samples", 0);
  return usage;
}

std::string format_engine_usage(const EngineUsage& usage) {
  std::string text;
  char part[160];
  if (!usage.available) {
    text = usage.unavailable_reason.empty() ? "not available" : usage.unavailable_reason;
  } else {
    for (const EngineBusy& e : usage.engines) {
      std::snprintf(part, sizeof part, "%s%s %.1f%%", text.empty() ? "" : ", ", e.label.c_str(),
                    e.busy_percent);
      text += part;
    }
    if (text.empty()) text = "no engine counters";
    if (usage.memory_total_peak_bytes > 0) {
      std::snprintf(part, sizeof part, " | gpu memory %.1f MiB",
                    usage.memory_total_peak_bytes / (1024.0 * 1024.0));
      text += part;
    }
  }
  if (usage.cpu_cores > 0) {
    std::snprintf(part, sizeof part, " | cpu %.2f cores", usage.cpu_cores);
    text += part;
  }
  return text;
}

}  // namespace tc::metrics
