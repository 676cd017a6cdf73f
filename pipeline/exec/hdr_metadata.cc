#include "pipeline/exec/hdr_metadata.h"

#include <cmath>

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

}  // namespace tc
