#include "service/cli/progress_json.h"

#include <array>

#include <nlohmann/json.hpp>

namespace tc::cli {
namespace {

struct NamedMode {
  ProgressMode mode;
  const char* name;
};
constexpr std::array kModes{NamedMode{ProgressMode::kBar, "bar"},
                            NamedMode{ProgressMode::kJson, "json"}};

nlohmann::json or_null(std::optional<double> value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

}  // namespace

std::string progress_mode_label() {
  std::string label;
  for (const NamedMode& entry : kModes)
    label += (label.empty() ? "" : "|") + std::string(entry.name);
  return label;
}

Result<ProgressMode> parse_progress_mode(std::string_view name) {
  for (const NamedMode& entry : kModes)
    if (name == entry.name) return entry.mode;
  return Status(Code::kInvalidArgument,
                "--progress: '" + std::string(name) + "' is not one of: " + progress_mode_label());
}

std::string progress_json_line(std::string_view state, const Progress& progress,
                               std::optional<double> percent, std::optional<double> eta_s) {
  if (state == "succeeded" && percent) {
    percent = 100;
    eta_s = 0;
  }
  nlohmann::json line{{"state", state},
                      {"frames", progress.frames_decoded},
                      {"fps", progress.fps},
                      {"media_time_s", progress.media_time_s},
                      {"percent", or_null(percent)},
                      {"eta_s", or_null(eta_s)}};
  return line.dump() + "\n";
}

}  // namespace tc::cli
