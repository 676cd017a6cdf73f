// Ownership of every libav object: unique_ptr with stateless deleters (as Chromium's
// media/ffmpeg does). Packets and frames come only from the factories below.
#pragma once

#include <memory>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavfilter/avfilter.h>
#include <libavformat/avformat.h>
#include <libavutil/buffer.h>
#include <libavutil/dict.h>
#include <libavutil/frame.h>
}

namespace tc::av {

struct InputFormatDeleter {
  void operator()(AVFormatContext* ctx) const { avformat_close_input(&ctx); }
};
// An output context owns its AVIO unless the caller supplied it (AVFMT_FLAG_CUSTOM_IO): closed
// here, never with the input-context function.
struct OutputFormatDeleter {
  void operator()(AVFormatContext* ctx) const {
    bool owns_io = !(ctx->flags & AVFMT_FLAG_CUSTOM_IO);
    if (owns_io && ctx->oformat && !(ctx->oformat->flags & AVFMT_NOFILE)) avio_closep(&ctx->pb);
    avformat_free_context(ctx);
  }
};
struct CodecContextDeleter {
  void operator()(AVCodecContext* ctx) const { avcodec_free_context(&ctx); }
};
struct FrameDeleter {
  void operator()(AVFrame* frame) const { av_frame_free(&frame); }
};
struct PacketDeleter {
  void operator()(AVPacket* packet) const { av_packet_free(&packet); }
};
struct FilterGraphDeleter {
  void operator()(AVFilterGraph* graph) const { avfilter_graph_free(&graph); }
};
struct FilterInOutDeleter {
  void operator()(AVFilterInOut* inout) const { avfilter_inout_free(&inout); }
};
struct BufferRefDeleter {
  void operator()(AVBufferRef* ref) const { av_buffer_unref(&ref); }
};
struct DictionaryDeleter {
  void operator()(AVDictionary* dict) const { av_dict_free(&dict); }
};

using InputFormatPtr = std::unique_ptr<AVFormatContext, InputFormatDeleter>;
using OutputFormatPtr = std::unique_ptr<AVFormatContext, OutputFormatDeleter>;
using CodecContextPtr = std::unique_ptr<AVCodecContext, CodecContextDeleter>;
using FramePtr = std::unique_ptr<AVFrame, FrameDeleter>;
using PacketPtr = std::unique_ptr<AVPacket, PacketDeleter>;
using FilterGraphPtr = std::unique_ptr<AVFilterGraph, FilterGraphDeleter>;
using FilterInOutPtr = std::unique_ptr<AVFilterInOut, FilterInOutDeleter>;
using BufferRefPtr = std::unique_ptr<AVBufferRef, BufferRefDeleter>;
using DictionaryPtr = std::unique_ptr<AVDictionary, DictionaryDeleter>;

inline FramePtr make_frame() {
  return FramePtr(av_frame_alloc());
}
inline PacketPtr make_packet() {
  return PacketPtr(av_packet_alloc());
}
// A new reference to a buffer (hw device or frames context); null stays null.
inline BufferRefPtr ref(const AVBufferRef* buffer) {
  return BufferRefPtr(buffer ? av_buffer_ref(buffer) : nullptr);
}

}  // namespace tc::av
