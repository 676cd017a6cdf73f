#include "pipeline/exec/hdr_metadata.h"

#include <cmath>
#include <cstdio>

extern "C" {
#include <libavutil/mastering_display_metadata.h>
}

#include "pipeline/core/compat.h"

namespace tc {
namespace {

const uint8_t* frame_side_data(const AVFrame& frame, AVFrameSideDataType type) {
  const AVFrameSideData* entry = av_frame_get_side_data(&frame, type);
  return entry ? entry->data : nullptr;
}

// x265 counts chromaticity in 0.00002 and luminance in 0.0001 cd/m2.
long scaled(AVRational value, double unit) {
  return std::lround(av_q2d(value) / unit);
}

std::string point(const char* name, const AVRational xy[2]) {
  return std::string(name) + "(" + std::to_string(scaled(xy[0], 0.00002)) + "," +
         std::to_string(scaled(xy[1], 0.00002)) + ")";
}

}  // namespace

HdrMetadata hdr_metadata_of(const AVFrame& first, const AVStream& input) {
  HdrMetadata metadata;
  const auto* mastering = reinterpret_cast<const AVMasteringDisplayMetadata*>(
      frame_side_data(first, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA));
  metadata.mastering = mastering && mastering->has_primaries && mastering->has_luminance
                           ? reinterpret_cast<const uint8_t*>(mastering)
                           : av::stream_side_data(&input, AV_PKT_DATA_MASTERING_DISPLAY_METADATA);
  metadata.light = frame_side_data(first, AV_FRAME_DATA_CONTENT_LIGHT_LEVEL);
  if (!metadata.light)
    metadata.light = av::stream_side_data(&input, AV_PKT_DATA_CONTENT_LIGHT_LEVEL);
  return metadata;
}

Status add_hdr_side_data(const HdrMetadata& metadata, AVStream& output) {
  bool added = true;
  if (metadata.mastering)
    added &= av::add_stream_side_data(&output, AV_PKT_DATA_MASTERING_DISPLAY_METADATA,
                                      metadata.mastering, sizeof(AVMasteringDisplayMetadata));
  if (metadata.light)
    added &= av::add_stream_side_data(&output, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, metadata.light,
                                      sizeof(AVContentLightMetadata));
  if (!added) return {Code::kInternal, "out of memory adding HDR metadata to the output stream"};
  return Status::ok();
}

MasteringDisplayFill::MasteringDisplayFill(const AVStream& input) {
  if (const uint8_t* declared =
          av::stream_side_data(&input, AV_PKT_DATA_MASTERING_DISPLAY_METADATA)) {
    last_ = *reinterpret_cast<const AVMasteringDisplayMetadata*>(declared);
    return;
  }
  constexpr int kChromaticity = 50000;                     // x265's unit, 0.00002
  last_.display_primaries[0][0] = {34000, kChromaticity};  // R 0.680, 0.320
  last_.display_primaries[0][1] = {16000, kChromaticity};
  last_.display_primaries[1][0] = {13250, kChromaticity};  // G 0.265, 0.690
  last_.display_primaries[1][1] = {34500, kChromaticity};
  last_.display_primaries[2][0] = {7500, kChromaticity};  // B 0.150, 0.060
  last_.display_primaries[2][1] = {3000, kChromaticity};
  last_.white_point[0] = {15635, kChromaticity};  // D65 0.3127, 0.3290
  last_.white_point[1] = {16450, kChromaticity};
  last_.max_luminance = {1000, 1};
  last_.min_luminance = {1, 10000};
  last_.has_primaries = 1;
  last_.has_luminance = 1;
}

Status MasteringDisplayFill::fill(AVFrame& frame) {
  if (frame.color_trc == AVCOL_TRC_SMPTE2084 || frame.color_trc == AVCOL_TRC_ARIB_STD_B67) {
    if (frame.color_primaries == AVCOL_PRI_UNSPECIFIED) frame.color_primaries = AVCOL_PRI_BT2020;
    if (frame.colorspace == AVCOL_SPC_UNSPECIFIED) frame.colorspace = AVCOL_SPC_BT2020_NCL;
  }
  if (const auto* own = reinterpret_cast<const AVMasteringDisplayMetadata*>(
          frame_side_data(frame, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA));
      own && own->has_primaries && own->has_luminance) {
    last_ = *own;
    return Status::ok();
  }
  av_frame_remove_side_data(&frame, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA);
  AVMasteringDisplayMetadata* added = av_mastering_display_metadata_create_side_data(&frame);
  if (!added) return {Code::kInternal, "out of memory adding mastering display metadata"};
  *added = last_;
  return Status::ok();
}

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

void add_hdr_params(std::string_view encoder, const HdrMetadata& metadata,
                    std::vector<std::pair<std::string, std::string>>& options) {
  bool x265 = encoder == "libx265";
  if (!x265 && encoder != "libsvtav1") return;
  std::string params = x265 ? x265_hdr_params(metadata) : svtav1_hdr_params(metadata);
  if (params.empty()) return;
  std::string key = x265 ? "x265-params" : "svtav1-params";
  for (auto& [name, value] : options) {
    if (name != key) continue;
    bool carried = value.find("master-display=") != std::string::npos ||
                   value.find("max-cll=") != std::string::npos ||
                   value.find("content-light=") != std::string::npos;
    if (!carried) value += (value.empty() ? "" : ":") + params;
    return;
  }
  options.emplace_back(key, params);
}

}  // namespace tc
