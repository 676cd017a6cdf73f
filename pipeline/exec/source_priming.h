// The samples an audio source marks as its encoder's priming: they come before the source's time
// 0 and are not content. A source states them as AVCodecParameters.initial_padding (Matroska's
// CodecDelay); libavcodec's decoders output them as audio unless the demuxer attached
// skip-samples side data (then the decoder drops them and its first frame starts at the content).
//
// Why it matters: FFmpeg 7.1's Matroska muxer writes AAC's 1024 priming samples at negative
// times (a 48 kHz source: the first packet at -21 ms, the video at 0) and states them as
// CodecDelay, where 5.1's shifted every stream 21 ms later and stated nothing. Decoded as
// content, that priming made a job's audio start 21 ms before the source's time 0: a package's
// DASH period started there, and its WebVTT document showed every cue 21 ms late.
//
// The contract: a decoded frame that ends at or before the first packet's time plus the
// stated padding is priming and is dropped; a frame that reaches past it is kept whole (the
// decoder's frames are whole codec frames, and AAC's priming is exactly one). Only from the
// stream's start: after a start trim the trim's window decides what is dropped.
#pragma once

#include <cstdint>

extern "C" {
#include <libavformat/avformat.h>
#include <libavutil/frame.h>
#include <libavutil/mathematics.h>
}

namespace tc {

class SourcePriming {
 public:
  SourcePriming() = default;
  // `from_start`: the job reads the stream from its first packet (no start trim).
  SourcePriming(const AVStream& stream, bool from_start)
      : stream_(&stream),
        active_(from_start && stream.codecpar->initial_padding > 0 &&
                stream.codecpar->sample_rate > 0) {}

  // The first packet of the stream fixes where its content starts.
  void on_packet(const AVPacket& packet) {
    if (!active_ || content_start_ != AV_NOPTS_VALUE || packet.pts == AV_NOPTS_VALUE) return;
    const AVCodecParameters& codec = *stream_->codecpar;
    content_start_ = packet.pts + av_rescale_q(codec.initial_padding, {1, codec.sample_rate},
                                               stream_->time_base);
  }

  // Whether `frame` (pts in the stream's time base) is priming and not content.
  bool covers(const AVFrame& frame) const {
    if (!active_ || content_start_ == AV_NOPTS_VALUE || frame.pts == AV_NOPTS_VALUE ||
        frame.sample_rate <= 0)
      return false;
    if (frame.pts >= content_start_) return false;
    int64_t end =
        frame.pts + av_rescale_q(frame.nb_samples, {1, frame.sample_rate}, stream_->time_base);
    return end <= content_start_;
  }

 private:
  const AVStream* stream_ = nullptr;
  bool active_ = false;
  int64_t content_start_ = AV_NOPTS_VALUE;
};

}  // namespace tc
