#include "pipeline/metrics/fdinfo.h"

#include <charconv>

namespace tc::metrics {
namespace {

struct ClassName {
  const char* key;   // as a driver writes it
  const char* name;  // as users see it
};

constexpr ClassName kClasses[] = {
    {"render", "render"},
    {"rcs", "render"},
    {"copy", "copy"},
    {"bcs", "copy"},
    {"video", "video"},
    {"vcs", "video"},
    {"video-enhance", "video-enhance"},
    {"vecs", "video-enhance"},
    {"compute", "compute"},
    {"ccs", "compute"},
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// The leading unsigned integer of `value` and what follows it, trimmed.
std::optional<uint64_t> leading_uint(std::string_view value, std::string_view& unit) {
  uint64_t number = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (ec != std::errc() || end == value.data()) return std::nullopt;
  unit = trim(value.substr(static_cast<size_t>(end - value.data())));
  return number;
}

// A counter value: a bare integer, or one followed by "ns" (i915's engine time).
std::optional<uint64_t> parse_counter(std::string_view value) {
  std::string_view unit;
  std::optional<uint64_t> number = leading_uint(value, unit);
  if (!number || !(unit.empty() || unit == "ns")) return std::nullopt;
  return number;
}

void apply(DrmClient& client, std::string_view key, std::string_view value) {
  if (key == "drm-driver")
    client.driver = value;
  else if (key == "drm-pdev")
    client.pdev = value;
  else if (key == "drm-client-id")
    client.client_id = value;
  else if (starts_with(key, "drm-engine-capacity-")) {
    std::optional<uint64_t> n = parse_counter(value);
    if (n && *n > 0)
      client.engines[engine_class_name(key.substr(20))].capacity = static_cast<unsigned>(*n);
  } else if (starts_with(key, "drm-engine-")) {
    if (std::optional<uint64_t> n = parse_counter(value))
      client.engines[engine_class_name(key.substr(11))].busy = *n;
  } else if (starts_with(key, "drm-total-cycles-")) {
    if (std::optional<uint64_t> n = parse_counter(value)) {
      EngineCounter& engine = client.engines[engine_class_name(key.substr(17))];
      engine.total_cycles = *n;
      engine.cycles = true;
    }
  } else if (starts_with(key, "drm-cycles-")) {
    if (std::optional<uint64_t> n = parse_counter(value)) {
      EngineCounter& engine = client.engines[engine_class_name(key.substr(11))];
      engine.busy = *n;
      engine.cycles = true;
    }
  } else if (starts_with(key, "drm-total-")) {
    if (std::optional<uint64_t> n = parse_memory_value(value)) client.memory_total += *n;
  } else if (starts_with(key, "drm-resident-")) {
    if (std::optional<uint64_t> n = parse_memory_value(value)) client.memory_resident += *n;
  }
}

}  // namespace

std::string engine_class_name(std::string_view driver_key) {
  for (const ClassName& c : kClasses)
    if (driver_key == c.key) return c.name;
  return std::string(driver_key);
}

std::string engine_class_label(std::string_view name) {
  if (name == "render") return "render/3D";
  if (name == "video") return "video (decode+encode)";
  if (name == "video-enhance") return "video-enhance (scaling, VPP)";
  return std::string(name);
}

std::optional<uint64_t> parse_memory_value(std::string_view value) {
  std::string_view unit;
  std::optional<uint64_t> number = leading_uint(trim(value), unit);
  if (!number) return std::nullopt;
  if (unit.empty()) return number;
  if (unit == "KiB") return *number * 1024;
  if (unit == "MiB") return *number * 1024 * 1024;
  if (unit == "GiB") return *number * 1024 * 1024 * 1024;
  return std::nullopt;
}

std::optional<DrmClient> parse_fdinfo(std::string_view text) {
  DrmClient client;
  while (!text.empty()) {
    size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = trim(line.substr(0, colon));
    std::string_view value = trim(line.substr(colon + 1));
    if (!starts_with(key, "drm-") || value.empty()) continue;
    apply(client, key, value);
  }
  if (client.driver.empty() || client.client_id.empty()) return std::nullopt;
  return client;
}

}  // namespace tc::metrics
