// The one place that knows which FFmpeg generation we build against: Debian 12's 5.1
// (libavformat 59, libavcodec 59) and Debian 13's 7.1 (libavformat 61, libavcodec 61).
// Each function here has one body per generation; callers never test versions themselves.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/pixfmt.h>
}

namespace tc::av {

// Stream side data moved into codecpar->coded_side_data in 6.1 (lavc 60.30); the
// av_stream_*_side_data accessors were removed in 7.0 (lavf 61).
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 30, 100)
#define TC_AV_CODECPAR_SIDE_DATA 1
#else
#define TC_AV_CODECPAR_SIDE_DATA 0
#endif

// The stream's side data of `type`, or nullptr; `size` (optional) receives its size.
inline const uint8_t* stream_side_data(const AVStream* stream, AVPacketSideDataType type,
                                       size_t* size = nullptr) {
#if TC_AV_CODECPAR_SIDE_DATA
  const AVPacketSideData* entry = av_packet_side_data_get(
      stream->codecpar->coded_side_data, stream->codecpar->nb_coded_side_data, type);
  if (size) *size = entry ? entry->size : 0;
  return entry ? entry->data : nullptr;
#else
  size_t found_size = 0;
  const uint8_t* data = av_stream_get_side_data(stream, type, &found_size);
  if (size) *size = data ? found_size : 0;
  return data;
#endif
}

// Adds a copy of `size` bytes of side data of `type` to the stream. False when out of memory.
inline bool add_stream_side_data(AVStream* to, AVPacketSideDataType type, const uint8_t* data,
                                 size_t size) {
#if TC_AV_CODECPAR_SIDE_DATA
  AVPacketSideData* entry = av_packet_side_data_new(
      &to->codecpar->coded_side_data, &to->codecpar->nb_coded_side_data, type, size, 0);
  if (!entry) return false;
  std::memcpy(entry->data, data, size);
#else
  uint8_t* copy = av_stream_new_side_data(to, type, size);
  if (!copy) return false;
  std::memcpy(copy, data, size);
#endif
  return true;
}

// Copies the source stream's side data of `type` (if any) to `to`. False when it had some
// and it could not be copied (out of memory).
inline bool copy_stream_side_data(const AVStream* from, AVStream* to, AVPacketSideDataType type) {
  size_t size = 0;
  const uint8_t* data = stream_side_data(from, type, &size);
  if (!data) return true;
  return add_stream_side_data(to, type, data, size);
}

// The pixel formats an encoder accepts, AV_PIX_FMT_NONE-terminated, or nullptr when it does
// not say. AVCodec::pix_fmts is deprecated from 7.1 (lavc 61.13) for avcodec_get_supported_config.
inline const AVPixelFormat* encoder_pixel_formats(const AVCodec* codec) {
  if (!codec) return nullptr;
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(61, 13, 100)
  const void* formats = nullptr;
  int count = 0;
  if (avcodec_get_supported_config(nullptr, codec, AV_CODEC_CONFIG_PIX_FORMAT, 0, &formats,
                                   &count) < 0)
    return nullptr;
  return static_cast<const AVPixelFormat*>(formats);
#else
  return codec->pix_fmts;
#endif
}

// AVIOContext's write callback takes a const buffer from 7.0 (lavf 61).
#if LIBAVFORMAT_VERSION_MAJOR >= 61
using AvioWriteBuffer = const uint8_t*;
#else
using AvioWriteBuffer = uint8_t*;
#endif

// Whether the muxer takes this codec, with the same answer on every generation: FFmpeg 6.1
// added PCM in MP4 (ISO/IEC 23003-5, 'ipcm'/'fpcm'), which few players read, so plans made on
// 7.1 would copy PCM into .mp4 where 5.1's encode AAC. PCM in MP4 stays refused.
inline bool muxer_takes_codec(const AVOutputFormat* muxer, AVCodecID codec) {
  if (!muxer || avformat_query_codec(muxer, codec, FF_COMPLIANCE_NORMAL) != 1) return false;
  const AVCodecDescriptor* descriptor = avcodec_descriptor_get(codec);
  bool pcm = descriptor && std::strncmp(descriptor->name, "pcm_", 4) == 0;
  return !(pcm && std::strcmp(muxer->name, "mp4") == 0);
}

}  // namespace tc::av
