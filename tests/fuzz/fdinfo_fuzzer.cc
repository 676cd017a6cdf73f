// Fuzz target: the DRM fdinfo parser (the daemon reads every worker's /proc/PID/fdinfo/*, text
// a kernel driver wrote, with its own keys and units).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "pipeline/metrics/fdinfo.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::optional<tc::metrics::DrmClient> client = tc::metrics::parse_fdinfo(text);
  if (client) {
    (void)client->key();
    for (const auto& [name, engine] : client->engines) (void)tc::metrics::engine_class_label(name);
  }
  (void)tc::metrics::parse_memory_value(text);
  return 0;
}
