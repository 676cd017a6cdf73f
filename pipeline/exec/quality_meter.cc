#include "pipeline/exec/quality_meter.h"

extern "C" {
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavutil/pixdesc.h>
}

#include <cmath>
#include <cstdlib>

#include "pipeline/plan/video_format.h"

namespace tc {
namespace {

constexpr AVRational kMicroseconds{1, 1000000};
// Identical pictures have an infinite PSNR; JSON and protobuf carry no infinity, and no lossy
// encode comes near this.
constexpr double kPsnrCeilingDb = 100;
// References wait for the output frame they match for as long as the encoder and the decoder
// hold frames back (lookahead, B-frames, threads): far fewer than this. Past it the oldest is
// dropped rather than memory grown without bound.
constexpr size_t kMaxWaitingReferences = 512;

double psnr_db(double mean_mse, int max_value) {
  if (mean_mse <= 0) return kPsnrCeilingDb;
  return std::min(kPsnrCeilingDb, 10 * std::log10(double(max_value) * max_value / mean_mse));
}

// A per-frame figure the psnr or ssim filter left in the frame's metadata.
std::optional<double> metadata_number(const AVFrame& frame, const char* key) {
  const AVDictionaryEntry* entry = av_dict_get(frame.metadata, key, nullptr, 0);
  if (!entry) return std::nullopt;
  return std::strtod(entry->value, nullptr);
}

std::string size_and_format(int width, int height, AVPixelFormat format) {
  return "scale=" + std::to_string(width) + ":" + std::to_string(height) +
         ":flags=bicubic,format=" + av_get_pix_fmt_name(format);
}

// "[dist]" (the decoded output) and "[ref]" (the scaled source) to a sink per metric.
std::string comparison_text(const QualityMetrics& metrics, int width, int height,
                            AVPixelFormat format) {
  std::vector<std::string> filters;
  if (metrics.psnr) filters.push_back("psnr");
  if (metrics.ssim) filters.push_back("ssim");
  std::string text = "[dist]" + size_and_format(width, height, format);
  text += filters.size() == 2 ? ",split[d0][d1];[ref]split[r0][r1]" : "[d0];[ref]null[r0]";
  for (size_t i = 0; i < filters.size(); ++i)
    text += ";[d" + std::to_string(i) + "][r" + std::to_string(i) + "]" + filters[i] + "[" +
            filters[i] + "]";
  return text;
}

Result<AVFilterContext*> add_filter(AVFilterGraph* graph, const char* filter, const char* name,
                                    const std::string& args) {
  AVFilterContext* context = nullptr;
  if (int err = avfilter_graph_create_filter(&context, avfilter_get_by_name(filter), name,
                                             args.empty() ? nullptr : args.c_str(), nullptr, graph);
      err < 0)
    return av_status(err, Code::kInternal, std::string("--quality: filter ") + name);
  return context;
}

// The decoder of what an encoder wrote. AV1: libdav1d, where FFmpeg 5.1's own av1 decodes
// only through a hwaccel.
const AVCodec* decoder_for(AVCodecID codec) {
  const AVCodec* dav1d =
      codec == AV_CODEC_ID_AV1 ? avcodec_find_decoder_by_name("libdav1d") : nullptr;
  return dav1d ? dav1d : avcodec_find_decoder(codec);
}

}  // namespace

QualityMeter::QualityMeter(const QualityMetrics& metrics, int width, int height,
                           AVPixelFormat format)
    : metrics_(metrics), width_(width), height_(height), format_(format) {}

QualityMeter::~QualityMeter() = default;

Status QualityMeter::add_reference(const AVFrame& source, AVRational time_base) {
  if (finished_) return Status::ok();
  if (!scaler_) {
    FilterGraphPlan plan;
    plan.text = "[in]" + size_and_format(width_, height_, format_) + "[ref]";
    plan.sinks = {{"ref", 0}};
    TC_ASSIGN_OR_RETURN(
        scaler_, FilterGraph::create(plan, "in", video_source(source, time_base, {0, 1}), nullptr));
  }
  av::FramePtr copy(av_frame_clone(&source));
  if (!copy) return {Code::kInternal, "out of memory (--quality reference)"};
  TC_RETURN_IF_ERROR(scaler_->push(copy.get()));
  AVRational scaled_time_base = av_buffersink_get_time_base(scaler_->sink(0));
  for (;;) {
    av::FramePtr scaled = av::make_frame();
    int err = scaler_->pull(0, scaled.get());
    if (err == AVERROR(EAGAIN) || err == AVERROR_EOF) return Status::ok();
    if (err < 0) return av_status(err, Code::kInternal, "--quality: scaling the reference");
    if (scaled->pts == AV_NOPTS_VALUE) continue;
    int64_t pts_us = av_rescale_q(scaled->pts, scaled_time_base, kMicroseconds);
    if (references_.size() >= kMaxWaitingReferences) references_.pop_front();
    references_.push_back({std::move(scaled), pts_us});
  }
}

Status QualityMeter::open_decoder(const AVCodecContext& encoder) {
  const AVCodec* codec = decoder_for(encoder.codec_id);
  if (!codec)
    return {Code::kUnsupported,
            std::string("--quality: no decoder for ") + avcodec_get_name(encoder.codec_id)};
  decoder_.reset(avcodec_alloc_context3(codec));
  std::unique_ptr<AVCodecParameters, void (*)(AVCodecParameters*)> parameters(
      avcodec_parameters_alloc(), [](AVCodecParameters* p) { avcodec_parameters_free(&p); });
  if (!decoder_ || !parameters) return {Code::kInternal, "out of memory (--quality decoder)"};
  if (int err = avcodec_parameters_from_context(parameters.get(), &encoder); err < 0)
    return av_status(err, Code::kInternal, "--quality: encoder parameters");
  if (int err = avcodec_parameters_to_context(decoder_.get(), parameters.get()); err < 0)
    return av_status(err, Code::kInternal, "--quality: decoder parameters");
  packet_time_base_ = encoder.time_base;
  decoder_->pkt_timebase = encoder.time_base;
  decoder_->thread_count = 0;  // auto
  if (int err = avcodec_open2(decoder_.get(), codec, nullptr); err < 0)
    return av_status(err, Code::kInternal,
                     std::string("--quality: opening decoder ") + codec->name);
  return Status::ok();
}

Status QualityMeter::add_packet(const AVCodecContext& encoder, const AVPacket& packet) {
  if (finished_) return Status::ok();
  if (!decoder_) TC_RETURN_IF_ERROR(open_decoder(encoder));
  return decode(&packet);
}

Status QualityMeter::decode(const AVPacket* packet) {
  int err = avcodec_send_packet(decoder_.get(), packet);
  if (err < 0 && err != AVERROR_EOF)
    return av_status(err, Code::kInternal, "--quality: decoding the output again");
  for (;;) {
    err = avcodec_receive_frame(decoder_.get(), decoded_.get());
    if (err == AVERROR(EAGAIN) || err == AVERROR_EOF) return Status::ok();
    if (err < 0) return av_status(err, Code::kInternal, "--quality: decoding the output again");
    decoded_->pts = decoded_->best_effort_timestamp;
    Status status = compare(*decoded_);
    av_frame_unref(decoded_.get());
    TC_RETURN_IF_ERROR(status);
  }
}

// The reference of an output frame is the last source frame shown at or before its time (as
// ffmpeg's framesync pairs them); an output frame with none (none yet) is not scored.
Status QualityMeter::compare(AVFrame& decoded) {
  if (decoded.pts == AV_NOPTS_VALUE) return Status::ok();
  int64_t pts_us = av_rescale_q(decoded.pts, packet_time_base_, kMicroseconds);
  while (references_.size() >= 2 && references_[1].pts_us <= pts_us) references_.pop_front();
  if (references_.empty() || references_.front().pts_us > pts_us) return Status::ok();
  const AVFrame& reference = *references_.front().frame;
  if (!comparison_) TC_RETURN_IF_ERROR(open_comparison(decoded, reference));
  // Both sides at the output frame's time, so the filters pair exactly these two.
  av::FramePtr pair[2] = {av::FramePtr(av_frame_clone(&decoded)),
                          av::FramePtr(av_frame_clone(&reference))};
  AVFilterContext* sources[2] = {decoded_source_, reference_source_};
  for (int i = 0; i < 2; ++i) {
    if (!pair[i]) return {Code::kInternal, "out of memory (--quality)"};
    pair[i]->pts = pts_us;
    if (int err = av_buffersrc_add_frame_flags(sources[i], pair[i].get(), 0); err < 0)
      return av_status(err, Code::kInternal, "--quality: comparing a frame");
  }
  return pull_scores();
}

Status QualityMeter::open_comparison(const AVFrame& decoded, const AVFrame& reference) {
  comparison_.reset(avfilter_graph_alloc());
  if (!comparison_) return {Code::kInternal, "out of memory (--quality graph)"};
  AVFilterGraph* graph = comparison_.get();
  TC_ASSIGN_OR_RETURN(
      decoded_source_,
      add_filter(graph, "buffer", "dist", video_source(decoded, kMicroseconds, {0, 1}).args));
  TC_ASSIGN_OR_RETURN(
      reference_source_,
      add_filter(graph, "buffer", "ref", video_source(reference, kMicroseconds, {0, 1}).args));
  std::vector<std::pair<std::string, AVFilterContext*>> sinks;
  if (metrics_.psnr) {
    TC_ASSIGN_OR_RETURN(psnr_sink_, add_filter(graph, "buffersink", "psnr", ""));
    sinks.emplace_back("psnr", psnr_sink_);
  }
  if (metrics_.ssim) {
    TC_ASSIGN_OR_RETURN(ssim_sink_, add_filter(graph, "buffersink", "ssim", ""));
    sinks.emplace_back("ssim", ssim_sink_);
  }
  std::string text = comparison_text(metrics_, width_, height_, format_);
  AVFilterInOut* outputs =
      link_list({{"dist", decoded_source_}, {"ref", reference_source_}}).release();
  AVFilterInOut* inputs = link_list(sinks).release();
  int err = avfilter_graph_parse_ptr(graph, text.c_str(), &inputs, &outputs, nullptr);
  avfilter_inout_free(&inputs);
  avfilter_inout_free(&outputs);
  if (err < 0) return av_status(err, Code::kInternal, "--quality: graph '" + text + "'");
  if (int err = avfilter_graph_config(graph, nullptr); err < 0)
    return av_status(err, Code::kInternal, "--quality: configuring '" + text + "'");
  return Status::ok();
}

Status QualityMeter::pull_scores() {
  for (AVFilterContext* sink : {psnr_sink_, ssim_sink_}) {
    if (!sink) continue;
    for (;;) {
      int err = av_buffersink_get_frame(sink, scored_.get());
      if (err == AVERROR(EAGAIN) || err == AVERROR_EOF) break;
      if (err < 0) return av_status(err, Code::kInternal, "--quality: comparing frames");
      if (sink == psnr_sink_) {
        std::optional<double> mse_y = metadata_number(*scored_, "lavfi.psnr.mse.y");
        std::optional<double> mse_avg = metadata_number(*scored_, "lavfi.psnr.mse_avg");
        if (mse_y && mse_avg) {
          mse_y_sum_ += *mse_y;
          mse_avg_sum_ += *mse_avg;
          ++psnr_frames_;
        }
      } else if (std::optional<double> all = metadata_number(*scored_, "lavfi.ssim.All")) {
        ssim_sum_ += *all;
        ++ssim_frames_;
      }
      av_frame_unref(scored_.get());
    }
  }
  return Status::ok();
}

Status QualityMeter::finish() {
  if (finished_) return Status::ok();
  finished_ = true;
  if (decoder_) TC_RETURN_IF_ERROR(decode(nullptr));
  references_.clear();
  if (!comparison_) return Status::ok();
  for (AVFilterContext* source : {decoded_source_, reference_source_})
    if (int err = av_buffersrc_add_frame_flags(source, nullptr, 0); err < 0)
      return av_status(err, Code::kInternal, "--quality: ending the comparison");
  return pull_scores();
}

QualityScore QualityMeter::score() const {
  QualityScore score;
  score.frames = std::max(psnr_frames_, ssim_frames_);
  const AVPixFmtDescriptor* format = av_pix_fmt_desc_get(format_);
  int max_value = (1 << (format ? format->comp[0].depth : 8)) - 1;
  if (metrics_.psnr && psnr_frames_ > 0) {
    score.psnr_y_db = psnr_db(mse_y_sum_ / double(psnr_frames_), max_value);
    score.psnr_avg_db = psnr_db(mse_avg_sum_ / double(psnr_frames_), max_value);
  }
  if (metrics_.ssim && ssim_frames_ > 0) score.ssim = ssim_sum_ / double(ssim_frames_);
  return score;
}

std::vector<std::unique_ptr<QualityMeter>> make_quality_meters(const JobSpec& spec,
                                                               const Plan& plan) {
  std::vector<std::unique_ptr<QualityMeter>> meters;
  if (!spec.quality_metrics.any()) return meters;
  for (const OutputPlan& output : plan.outputs) {
    const VideoFormatPlan& format = output.video.format;
    meters.push_back(output.video_copy ? nullptr
                                       : std::make_unique<QualityMeter>(
                                             spec.quality_metrics, output.width, output.height,
                                             planar_format(format.bit_depth, format.chroma)));
  }
  return meters;
}

}  // namespace tc
