// A planned chain of software filters run by this libavfilter on one uniform frame, configured as
// a job configures it: the conversions libavfilter inserts between filters that share no pixel
// format run too, which parsing the text (graph_parse.h) cannot show. No device is needed.
#pragma once

#include <array>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

extern "C" {
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavutil/frame.h>
#include <libavutil/pixdesc.h>
}

#include "pipeline/probe/media_info.h"
#include "tests/unit/graph_parse.h"

namespace tc::testing {

struct AvFrameDeleter {
  void operator()(AVFrame* frame) const { av_frame_free(&frame); }
};
using OwnedFrame = std::unique_ptr<AVFrame, AvFrameDeleter>;

// A frame of `format` whose every sample is `yuv` (Y, Cb, Cr codes in the format's own depth:
// 10-bit codes for p010le too), tagged `color`. A colour, not grey: a conversion that mixes up
// RGB planes leaves grey alone.
inline OwnedFrame uniform_frame(AVPixelFormat format, int width, int height,
                                const std::array<uint16_t, 3>& yuv, const ColorTags& color) {
  OwnedFrame frame(av_frame_alloc());
  frame->format = format;
  frame->width = width;
  frame->height = height;
  if (av_frame_get_buffer(frame.get(), 0) < 0) return nullptr;
  // av_write_image_line2 ORs each sample into what the buffer holds: start from zeros.
  for (AVBufferRef* buffer : frame->buf)
    if (buffer) memset(buffer->data, 0, buffer->size);
  const AVPixFmtDescriptor* desc = av_pix_fmt_desc_get(format);
  for (int c = 0; c < desc->nb_components; ++c) {
    bool chroma = c == 1 || c == 2;
    int w = chroma ? AV_CEIL_RSHIFT(width, desc->log2_chroma_w) : width;
    int h = chroma ? AV_CEIL_RSHIFT(height, desc->log2_chroma_h) : height;
    std::vector<uint16_t> line(w, yuv[c]);
    for (int y = 0; y < h; ++y)
      av_write_image_line2(line.data(), frame->data, frame->linesize, desc, 0, y, c, w, 2);
  }
  frame->color_primaries = color.primaries;
  frame->color_trc = color.transfer;
  frame->colorspace = color.matrix;
  frame->color_range = color.range;
  return frame;
}

// The mean luma code (in the output format's depth) of `filters` ("format=p010le,zscale=...")
// run on `frame`; -1 where libavfilter refused the chain or gave no frame.
inline double luma_after(const std::string& filters, const AVFrame& frame) {
  std::unique_ptr<AVFilterGraph, GraphDeleter> graph(avfilter_graph_alloc());
  AVFilterContext* source = nullptr;
  AVFilterContext* sink = nullptr;
  std::string args = "video_size=" + std::to_string(frame.width) + "x" +
                     std::to_string(frame.height) + ":pix_fmt=" + std::to_string(frame.format) +
                     ":time_base=1/25:pixel_aspect=1/1";
#if LIBAVFILTER_VERSION_INT >= AV_VERSION_INT(10, 4, 100)
  // As a job's source declares them (pipeline/exec/filter_graph.cc): libavfilter 10.4 (FFmpeg
  // 7.1) negotiates colorspace and range from the source, and zscale refuses an undeclared one.
  args += ":colorspace=" + std::to_string(frame.colorspace) +
          ":range=" + std::to_string(frame.color_range);
#endif
  if (avfilter_graph_create_filter(&source, avfilter_get_by_name("buffer"), "in", args.c_str(),
                                   nullptr, graph.get()) < 0 ||
      avfilter_graph_create_filter(&sink, avfilter_get_by_name("buffersink"), "out", nullptr,
                                   nullptr, graph.get()) < 0)
    return -1;
  AVFilterInOut* outputs = avfilter_inout_alloc();
  AVFilterInOut* inputs = avfilter_inout_alloc();
  outputs->name = av_strdup("in");
  outputs->filter_ctx = source;
  inputs->name = av_strdup("out");
  inputs->filter_ctx = sink;
  int err = avfilter_graph_parse_ptr(graph.get(), filters.c_str(), &inputs, &outputs, nullptr);
  std::unique_ptr<AVFilterInOut, InOutDeleter> own_inputs(inputs), own_outputs(outputs);
  if (err < 0 || avfilter_graph_config(graph.get(), nullptr) < 0) return -1;
  OwnedFrame in(av_frame_clone(&frame));
  OwnedFrame out(av_frame_alloc());
  if (av_buffersrc_add_frame(source, in.get()) < 0 || av_buffersrc_add_frame(source, nullptr) < 0 ||
      av_buffersink_get_frame(sink, out.get()) < 0)
    return -1;
  const AVPixFmtDescriptor* desc = av_pix_fmt_desc_get(static_cast<AVPixelFormat>(out->format));
  std::vector<uint16_t> line(out->width);
  double sum = 0;
  for (int y = 0; y < out->height; ++y) {
    av_read_image_line2(line.data(), const_cast<const uint8_t**>(out->data), out->linesize, desc, 0,
                        y, 0, out->width, 0, 2);
    for (uint16_t v : line) sum += v;
  }
  return sum / (static_cast<double>(out->width) * out->height);
}

}  // namespace tc::testing
