// The mastering display metadata every frame gets before tonemap_vaapi (which refuses a frame
// without): its own, else the last seen, at first the container's, else an assumed display.
#include <gtest/gtest.h>

#include <utility>

extern "C" {
#include <libavformat/avformat.h>
#include <libavutil/mastering_display_metadata.h>
}

#include "pipeline/core/av.h"
#include "pipeline/core/compat.h"
#include "pipeline/exec/hdr_metadata.h"

namespace tc {
namespace {

const AVMasteringDisplayMetadata* mastering_of(const AVFrame& frame) {
  const AVFrameSideData* data =
      av_frame_get_side_data(&frame, AV_FRAME_DATA_MASTERING_DISPLAY_METADATA);
  return data ? reinterpret_cast<const AVMasteringDisplayMetadata*>(data->data) : nullptr;
}

struct Input {
  av::OutputFormatPtr format{avformat_alloc_context()};
  AVStream* stream = avformat_new_stream(format.get(), nullptr);
};

TEST(MasteringDisplayFill, FramesWithoutOneGetTheAssumedDisplayWhenNothingIsDeclared) {
  Input input;
  MasteringDisplayFill fill(*input.stream);
  av::FramePtr frame = av::make_frame();
  ASSERT_TRUE(fill.fill(*frame).is_ok());
  const AVMasteringDisplayMetadata* added = mastering_of(*frame);
  ASSERT_NE(added, nullptr);
  EXPECT_TRUE(added->has_primaries && added->has_luminance);
  EXPECT_DOUBLE_EQ(av_q2d(added->max_luminance), 1000);
  EXPECT_DOUBLE_EQ(av_q2d(added->display_primaries[1][1]), 0.69);  // P3 green y
}

// A PQ or HLG frame that leaves its primaries or matrix unset is BT.2020 for tonemap_vaapi (as
// for zscale in software); tags a frame has are kept, and an SDR or untagged frame is left as is.
TEST(MasteringDisplayFill, AnHdrFrameWithUnsetColourTagsIsBt2020) {
  Input input;
  MasteringDisplayFill fill(*input.stream);
  auto filled = [&](AVColorTransferCharacteristic trc, AVColorPrimaries primaries,
                    AVColorSpace matrix) {
    av::FramePtr frame = av::make_frame();
    frame->color_trc = trc;
    frame->color_primaries = primaries;
    frame->colorspace = matrix;
    EXPECT_TRUE(fill.fill(*frame).is_ok());
    return std::pair(frame->color_primaries, frame->colorspace);
  };
  auto bt2020 = std::pair(AVCOL_PRI_BT2020, AVCOL_SPC_BT2020_NCL);
  auto unset = std::pair(AVCOL_PRI_UNSPECIFIED, AVCOL_SPC_UNSPECIFIED);
  EXPECT_EQ(filled(AVCOL_TRC_SMPTE2084, AVCOL_PRI_UNSPECIFIED, AVCOL_SPC_UNSPECIFIED), bt2020);
  EXPECT_EQ(filled(AVCOL_TRC_ARIB_STD_B67, AVCOL_PRI_UNSPECIFIED, AVCOL_SPC_BT2020_NCL), bt2020);
  EXPECT_EQ(filled(AVCOL_TRC_SMPTE2084, AVCOL_PRI_BT709, AVCOL_SPC_UNSPECIFIED),
            std::pair(AVCOL_PRI_BT709, AVCOL_SPC_BT2020_NCL));
  EXPECT_EQ(filled(AVCOL_TRC_BT709, AVCOL_PRI_UNSPECIFIED, AVCOL_SPC_UNSPECIFIED), unset);
  EXPECT_EQ(filled(AVCOL_TRC_UNSPECIFIED, AVCOL_PRI_UNSPECIFIED, AVCOL_SPC_UNSPECIFIED), unset);
}

TEST(MasteringDisplayFill, TheContainersThenEachFramesOwnCarryToTheNextFrames) {
  Input input;
  AVMasteringDisplayMetadata declared{};
  declared.max_luminance = {4000, 1};
  declared.min_luminance = {5, 10000};
  declared.has_luminance = declared.has_primaries = 1;
  ASSERT_TRUE(av::add_stream_side_data(input.stream, AV_PKT_DATA_MASTERING_DISPLAY_METADATA,
                                       reinterpret_cast<const uint8_t*>(&declared),
                                       sizeof declared));
  MasteringDisplayFill fill(*input.stream);
  av::FramePtr first = av::make_frame();
  ASSERT_TRUE(fill.fill(*first).is_ok());
  EXPECT_DOUBLE_EQ(av_q2d(mastering_of(*first)->max_luminance), 4000);

  av::FramePtr own = av::make_frame();  // an IRAP frame with the SEI's
  AVMasteringDisplayMetadata* sei = av_mastering_display_metadata_create_side_data(own.get());
  sei->max_luminance = {600, 1};
  sei->min_luminance = {1, 10000};
  sei->has_luminance = sei->has_primaries = 1;
  ASSERT_TRUE(fill.fill(*own).is_ok());
  EXPECT_DOUBLE_EQ(av_q2d(mastering_of(*own)->max_luminance), 600);  // kept

  av::FramePtr next = av::make_frame();
  ASSERT_TRUE(fill.fill(*next).is_ok());
  EXPECT_DOUBLE_EQ(av_q2d(mastering_of(*next)->max_luminance), 600);  // the last seen
}

}  // namespace
}  // namespace tc
