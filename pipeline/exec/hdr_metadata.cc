#include "pipeline/exec/hdr_metadata.h"

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

}  // namespace tc
