#include <string>

extern "C" {
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavutil/channel_layout.h>
#include <libavutil/pixdesc.h>
}

#include "pipeline/exec/stages.h"

namespace tc {
namespace {

std::string rational(AVRational value) {
  return std::to_string(value.num) + "/" + std::to_string(value.den);
}

}  // namespace

av::FilterInOutPtr link_list(const std::vector<std::pair<std::string, AVFilterContext*>>& ends) {
  AVFilterInOut* head = nullptr;
  for (auto it = ends.rbegin(); it != ends.rend(); ++it) {
    AVFilterInOut* entry = avfilter_inout_alloc();
    entry->name = av_strdup(it->first.c_str());
    entry->filter_ctx = it->second;
    entry->pad_idx = 0;
    entry->next = head;
    head = entry;
  }
  return av::FilterInOutPtr(head);
}

namespace {

Result<AVFilterContext*> create_source(AVFilterGraph* graph, const FilterGraph::Source& source) {
  AVFilterContext* filter =
      avfilter_graph_alloc_filter(graph, avfilter_get_by_name(source.filter), "source");
  if (!filter) return Status(Code::kInternal, "cannot allocate a filter source");
  if (source.hw_frames) {
    AVBufferSrcParameters* params = av_buffersrc_parameters_alloc();
    params->hw_frames_ctx = const_cast<AVBufferRef*>(source.hw_frames);  // referenced, not taken
    int err = av_buffersrc_parameters_set(filter, params);
    av_free(params);
    if (err < 0) return av_status(err, Code::kInternal, "filter source hw frames");
  }
  if (int err = avfilter_init_str(filter, source.args.c_str()); err < 0)
    return av_status(err, Code::kInternal, "filter source (" + source.args + ")");
  return filter;
}

}  // namespace

FilterGraph::Source video_source(const AVFrame& frame, AVRational time_base,
                                 AVRational frame_rate) {
  AVRational aspect = frame.sample_aspect_ratio.num ? frame.sample_aspect_ratio : AVRational{1, 1};
  std::string args = "video_size=" + std::to_string(frame.width) + "x" +
                     std::to_string(frame.height) + ":pix_fmt=" + std::to_string(frame.format) +
                     ":time_base=" + rational(time_base) + ":pixel_aspect=" + rational(aspect);
  if (frame_rate.num > 0) args += ":frame_rate=" + rational(frame_rate);
#if LIBAVFILTER_VERSION_INT >= AV_VERSION_INT(10, 4, 100)
  // FFmpeg 7.1 (libavfilter 10.4) negotiates YUV colorspace and range between filters like a
  // pixel format, from what the source declares; undeclared, scale's output frames lose the
  // source's matrix and zscale, asked for linear light from an unknown matrix, fails ("Generic
  // error in an external library"). The ffmpeg CLI declares them; so do we. 5.1 has no such
  // options: each filter reads the frames' own.
  args += ":colorspace=" + std::to_string(frame.colorspace) +
          ":range=" + std::to_string(frame.color_range);
#endif
  return {"buffer", args, frame.hw_frames_ctx};
}

FilterGraph::Source audio_source(const AVCodecContext& decoder) {
  AVChannelLayout layout{};
  if (decoder.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC)
    av_channel_layout_default(&layout, decoder.ch_layout.nb_channels);
  else
    av_channel_layout_copy(&layout, &decoder.ch_layout);
  char layout_name[128] = {};
  av_channel_layout_describe(&layout, layout_name, sizeof layout_name);
  av_channel_layout_uninit(&layout);
  std::string args = "time_base=1/" + std::to_string(decoder.sample_rate) +
                     ":sample_rate=" + std::to_string(decoder.sample_rate) +
                     ":sample_fmt=" + av_get_sample_fmt_name(decoder.sample_fmt) +
                     ":channel_layout=" + layout_name;
  return {"abuffer", args, nullptr};
}

Result<FilterGraph> FilterGraph::create(const FilterGraphPlan& plan,
                                        const std::string& source_label, const Source& source,
                                        const AVBufferRef* device) {
  const std::string& text = plan.text;
  FilterGraph graph;
  graph.graph_.reset(avfilter_graph_alloc());
  if (!graph.graph_) return Status(Code::kInternal, "out of memory");
  // Before the first filter: libavfilter starts the graph's slice threads with it.
  if (plan.threads > 0) graph.graph_->nb_threads = plan.threads;
  TC_ASSIGN_OR_RETURN(graph.source_, create_source(graph.graph_.get(), source));
  const char* sink_filter = std::string(source.filter) == "abuffer" ? "abuffersink" : "buffersink";
  std::vector<std::pair<std::string, AVFilterContext*>> sink_ends;
  for (const GraphSink& planned : plan.sinks) {
    const std::string& label = planned.label;
    AVFilterContext* sink = nullptr;
    if (int err = avfilter_graph_create_filter(&sink, avfilter_get_by_name(sink_filter),
                                               label.c_str(), nullptr, nullptr, graph.graph_.get());
        err < 0)
      return av_status(err, Code::kInternal, "filter sink " + label);
    graph.sinks_.push_back(sink);
    sink_ends.emplace_back(label, sink);
  }
  // Our source is the graph text's open output; our sinks are its open inputs.
  av::FilterInOutPtr open_outputs = link_list({{source_label, graph.source_}});
  av::FilterInOutPtr open_inputs = link_list(sink_ends);
  AVFilterInOut* outputs = open_outputs.release();
  AVFilterInOut* inputs = open_inputs.release();
  int err = avfilter_graph_parse_ptr(graph.graph_.get(), text.c_str(), &inputs, &outputs, nullptr);
  avfilter_inout_free(&inputs);
  avfilter_inout_free(&outputs);
  if (err < 0) return av_status(err, Code::kInternal, "filter graph '" + text + "'");
  // hwupload and the device filters find their device here.
  if (device)
    for (unsigned i = 0; i < graph.graph_->nb_filters; ++i)
      graph.graph_->filters[i]->hw_device_ctx = av_buffer_ref(device);
  if (int err = avfilter_graph_config(graph.graph_.get(), nullptr); err < 0)
    return av_status(err, device ? Code::kDevice : Code::kInternal,
                     "configuring filter graph '" + text + "'");
  return graph;
}

Status FilterGraph::push(AVFrame* frame) {
  bool video_frame = frame && frame->nb_samples == 0 && frame->pts != AV_NOPTS_VALUE;
  if (video_frame && last_video_pts_ != AV_NOPTS_VALUE && frame->pts > last_video_pts_)
    video_step_ = frame->pts - last_video_pts_;
  if (video_frame) last_video_pts_ = frame->pts;
  if (!frame && last_video_pts_ != AV_NOPTS_VALUE) {
    int err = av_buffersrc_close(source_, last_video_pts_ + video_step_, AV_BUFFERSRC_FLAG_PUSH);
    if (err < 0) return av_status(err, Code::kInternal, "ending the filter graph");
    return Status::ok();
  }
  int err = av_buffersrc_add_frame_flags(source_, frame, 0);
  if (err < 0) return av_status(err, Code::kInternal, "filtering a frame");
  return Status::ok();
}

int FilterGraph::pull(size_t sink, AVFrame* frame) {
  return av_buffersink_get_frame(sinks_[sink], frame);
}

}  // namespace tc
