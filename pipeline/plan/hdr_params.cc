#include "pipeline/plan/hdr_params.h"

#include <cmath>
#include <cstdio>

extern "C" {
#include <libavutil/mastering_display_metadata.h>
}

namespace tc {
namespace {

// x265 counts chromaticity in 0.00002 and luminance in 0.0001 cd/m2.
long scaled(AVRational value, double unit) {
  return std::lround(av_q2d(value) / unit);
}

std::string point(const char* name, const AVRational xy[2]) {
  return std::string(name) + "(" + std::to_string(scaled(xy[0], 0.00002)) + "," +
         std::to_string(scaled(xy[1], 0.00002)) + ")";
}

}  // namespace

std::string x265_hdr_params(const HdrMetadata& metadata) {
  std::string params;
  if (const auto* m = reinterpret_cast<const AVMasteringDisplayMetadata*>(metadata.mastering)) {
    // AVMasteringDisplayMetadata's primaries are R, G, B; x265 wants G, B, R.
    params = "master-display=" + point("G", m->display_primaries[1]) +
             point("B", m->display_primaries[2]) + point("R", m->display_primaries[0]) +
             point("WP", m->white_point) + "L(" + std::to_string(scaled(m->max_luminance, 0.0001)) +
             "," + std::to_string(scaled(m->min_luminance, 0.0001)) + ")";
  }
  if (const auto* light = reinterpret_cast<const AVContentLightMetadata*>(metadata.light))
    params += (params.empty() ? "" : ":") + std::string("max-cll=") +
              std::to_string(light->MaxCLL) + "," + std::to_string(light->MaxFALL);
  return params;
}

std::string svtav1_hdr_params(const HdrMetadata& metadata) {
  std::string params;
  char text[192];
  if (const auto* m = reinterpret_cast<const AVMasteringDisplayMetadata*>(metadata.mastering)) {
    auto xy = [](const AVRational pair[2]) { return std::pair{av_q2d(pair[0]), av_q2d(pair[1])}; };
    auto [gx, gy] = xy(m->display_primaries[1]);
    auto [bx, by] = xy(m->display_primaries[2]);
    auto [rx, ry] = xy(m->display_primaries[0]);
    auto [wx, wy] = xy(m->white_point);
    std::snprintf(text, sizeof text,
                  "mastering-display=G(%.4f,%.4f)B(%.4f,%.4f)R(%.4f,%.4f)WP(%.4f,%.4f)L(%g,%.4f)",
                  gx, gy, bx, by, rx, ry, wx, wy, av_q2d(m->max_luminance),
                  av_q2d(m->min_luminance));
    params = text;
  }
  if (const auto* light = reinterpret_cast<const AVContentLightMetadata*>(metadata.light))
    params += (params.empty() ? "" : ":") + std::string("content-light=") +
              std::to_string(light->MaxCLL) + "," + std::to_string(light->MaxFALL);
  return params;
}

bool add_hdr_params(HdrParamsSyntax syntax, std::string_view option, const HdrMetadata& metadata,
                    std::vector<std::pair<std::string, std::string>>& options) {
  if (syntax == HdrParamsSyntax::kNone) return false;
  std::string params =
      syntax == HdrParamsSyntax::kX265 ? x265_hdr_params(metadata) : svtav1_hdr_params(metadata);
  if (params.empty()) return false;
  for (auto& [name, value] : options) {
    if (name != option) continue;
    value += (value.empty() ? "" : ":") + params;
    return true;
  }
  options.emplace_back(option, params);
  return true;
}

}  // namespace tc
