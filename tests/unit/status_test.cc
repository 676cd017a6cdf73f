#include "pipeline/core/status.h"

#include <gtest/gtest.h>

#include <cerrno>

extern "C" {
#include <libavutil/error.h>
}

namespace tc {
namespace {

Result<int> half(int value) {
  if (value % 2) return Status(Code::kInvalidArgument, "odd");
  return value / 2;
}

Result<int> quarter(int value) {
  TC_ASSIGN_OR_RETURN(int halved, half(value));
  return half(halved);
}

TEST(Status, MacrosPropagateTheFirstError) {
  EXPECT_EQ(*quarter(8), 2);
  EXPECT_EQ(quarter(6).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(quarter(6).status().to_string(), "invalid argument: odd");
}

TEST(Status, AvErrorsMapInOnePlace) {
  EXPECT_EQ(av_status(AVERROR_EXIT, Code::kInput, "reading").code(), Code::kCancelled);
  Status memory = av_status(AVERROR(ENOMEM), Code::kInput, "decoding");
  EXPECT_EQ(memory.code(), Code::kInternal);
  EXPECT_TRUE(memory.retryable());
  EXPECT_EQ(av_status(AVERROR_ENCODER_NOT_FOUND, Code::kOutput, "x").code(), Code::kUnsupported);
  Status hang = av_status(AVERROR(EIO), Code::kDevice, "encoding with h264_vaapi");
  EXPECT_EQ(hang.code(), Code::kDevice);
  EXPECT_TRUE(hang.retryable());
  Status bad_input = av_status(AVERROR_INVALIDDATA, Code::kInput, "in.mp4");
  EXPECT_EQ(bad_input.code(), Code::kInput);
  EXPECT_FALSE(bad_input.retryable());
  EXPECT_NE(bad_input.message().find("in.mp4: Invalid data"), std::string::npos)
      << bad_input.message();
}

// A demuxer's ENOMEM is a damaged size field in the input (FFmpeg 7.1's mov demuxer reading a
// damaged sample size table): an input error naming the file, not worth another attempt.
TEST(Status, OutOfMemoryWhileDemuxingIsTheInputs) {
  Status damaged = demux_status(AVERROR(ENOMEM), "reading in.mp4");
  EXPECT_EQ(damaged.code(), Code::kInput);
  EXPECT_FALSE(damaged.retryable());
  EXPECT_NE(damaged.message().find("reading in.mp4: corrupt"), std::string::npos)
      << damaged.message();
  EXPECT_EQ(demux_status(AVERROR_INVALIDDATA, "in.mp4").code(), Code::kInput);
  EXPECT_EQ(demux_status(AVERROR_EXIT, "in.mp4").code(), Code::kCancelled);
}

}  // namespace
}  // namespace tc

namespace tc {
namespace {

// Reading an error's value is a caller's bug: it stops loudly, naming the error, instead of
// reading an empty optional.
TEST(ResultDeathTest, ReadingTheValueOfAnErrorAborts) {
  Result<int> failed = Status(Code::kInput, "in.mp4: no such file");
  EXPECT_DEATH((void)failed.value(), "in.mp4: no such file");
  EXPECT_DEATH((void)*failed, "value of an error result");
}

}  // namespace
}  // namespace tc
