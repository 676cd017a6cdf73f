#include "pipeline/exec/source_change.h"

extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/log.h>
#include <libavutil/pixdesc.h>
}

namespace tc {
namespace {

std::string format_name(int format) {
  const char* name = av_get_pix_fmt_name(static_cast<AVPixelFormat>(format));
  return name ? name : "unknown";
}

}  // namespace

SourceWatch::Shape SourceWatch::shape_of(const AVFrame& frame) {
  Shape shape{frame.width, frame.height, frame.format, frame.sample_aspect_ratio,
              av::ref(frame.hw_frames_ctx)};
  // Unknown (0/0) is square, as the graph's source reads it.
  if (shape.sample_aspect.num <= 0 || shape.sample_aspect.den <= 0) shape.sample_aspect = {1, 1};
  av_reduce(&shape.sample_aspect.num, &shape.sample_aspect.den, shape.sample_aspect.num,
            shape.sample_aspect.den, INT32_MAX);
  return shape;
}

// "640x360 yuv420p", "1920x1080 vaapi (nv12)", "720x576 yuv420p SAR 16:15".
std::string SourceWatch::describe(const Shape& shape) {
  std::string text = std::to_string(shape.width) + "x" + std::to_string(shape.height) + " " +
                     format_name(shape.format);
  if (shape.hw_frames) {
    const auto* frames = reinterpret_cast<const AVHWFramesContext*>(shape.hw_frames->data);
    text += " (" + format_name(frames->sw_format) + ")";
  }
  if (shape.sample_aspect.num != shape.sample_aspect.den)
    text += " SAR " + std::to_string(shape.sample_aspect.num) + ":" +
            std::to_string(shape.sample_aspect.den);
  return text;
}

void SourceWatch::configured(const AVFrame& frame) {
  configured_ = shape_of(frame);
  if (first_pts_ == AV_NOPTS_VALUE) first_pts_ = frame.pts;
}

// Every frame is asked: compared field by field, without taking a reference to its pool.
bool SourceWatch::differs(const AVFrame& frame) const {
  AVRational aspect = frame.sample_aspect_ratio;
  if (aspect.num <= 0 || aspect.den <= 0) aspect = {1, 1};  // as shape_of reads it
  const uint8_t* pool = frame.hw_frames_ctx ? frame.hw_frames_ctx->data : nullptr;
  const uint8_t* configured_pool = configured_.hw_frames ? configured_.hw_frames->data : nullptr;
  return frame.width != configured_.width || frame.height != configured_.height ||
         frame.format != configured_.format || av_cmp_q(aspect, configured_.sample_aspect) != 0 ||
         pool != configured_pool;
}

void SourceWatch::record(const AVFrame& frame, AVRational time_base) {
  double at_s = frame.pts == AV_NOPTS_VALUE || first_pts_ == AV_NOPTS_VALUE
                    ? 0
                    : double(frame.pts - first_pts_) * av_q2d(time_base);
  if (changes_.size() >= kMaxReportedSourceChanges) {
    if (changes_.size() == kMaxReportedSourceChanges && !unlisted_)
      av_log(nullptr, AV_LOG_INFO,
             "transcode: the source changed again at %.3f s; further changes are rebuilt but "
             "neither logged nor listed in the report (it lists the first %zu)\n",
             at_s, kMaxReportedSourceChanges);
    unlisted_ = true;
    return;
  }
  SourceChangeReport change{at_s, describe(configured_), describe(shape_of(frame))};
  av_log(nullptr, AV_LOG_INFO,
         "transcode: the source changed at %.3f s: %s -> %s; video graph rebuilt, outputs keep "
         "their sizes\n",
         change.time_s, change.from.c_str(), change.to.c_str());
  changes_.push_back(std::move(change));
}

const FilterGraphPlan& video_graph_plan(const Plan& plan, const AVFrame& frame, bool changed) {
  bool refused = plan.decode.hw && !frame.hw_frames_ctx;
  if (changed) return refused ? plan.refit_fallback_video_graph : plan.refit_video_graph;
  return refused ? plan.fallback_video_graph : plan.video_graph;
}

}  // namespace tc
