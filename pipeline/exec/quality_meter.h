// `--quality`: one output measured against its source in the same run, from the one decode. The
// encoder's packets are decoded again here (in software), and each decoded frame is compared
// with the source frame shown at its time, scaled to the output's size (bicubic, in software),
// by libavfilter's psnr and ssim filters: the figures `ffmpeg -i OUT -i REF -lavfi psnr` gives
// for a reference scaled the same way.
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "pipeline/core/av.h"
#include "pipeline/core/status.h"
#include "pipeline/exec/report.h"
#include "pipeline/exec/stages.h"

namespace tc {

class QualityMeter {
 public:
  // Compares at `width`x`height` in `format` (the output's planar depth and chroma).
  QualityMeter(const QualityMetrics& metrics, int width, int height, AVPixelFormat format);
  QualityMeter(QualityMeter&&) = default;
  ~QualityMeter();

  // A decoded source frame in memory (not on a device), its pts in `time_base`, already shifted
  // to the output's time line.
  Status add_reference(const AVFrame& source, AVRational time_base);
  // One of the output encoder's packets (timestamps in its time base). The decoder opens on
  // the first, from the encoder's parameters.
  Status add_packet(const AVCodecContext& encoder, const AVPacket& packet);
  // After the encoder's last packet: drains the decoder and the comparison.
  Status finish();
  QualityScore score() const;

 private:
  struct Reference {
    av::FramePtr frame;
    int64_t pts_us = 0;
  };
  Status open_decoder(const AVCodecContext& encoder);
  Status decode(const AVPacket* packet);
  Status compare(AVFrame& decoded);
  Status open_comparison(const AVFrame& decoded, const AVFrame& reference);
  Status pull_scores();

  QualityMetrics metrics_;
  int width_ = 0;
  int height_ = 0;
  AVPixelFormat format_ = AV_PIX_FMT_NONE;
  std::optional<FilterGraph> scaler_;  // source frame -> reference at the output's size
  std::deque<Reference> references_;   // scaled, waiting for the output frame they match
  av::CodecContextPtr decoder_;
  AVRational packet_time_base_{0, 1};
  av::FramePtr decoded_ = av::make_frame();
  av::FramePtr scored_ = av::make_frame();
  // The comparison: two sources, one sink per metric (psnr, then ssim).
  av::FilterGraphPtr comparison_;
  AVFilterContext* decoded_source_ = nullptr;
  AVFilterContext* reference_source_ = nullptr;
  AVFilterContext* psnr_sink_ = nullptr;
  AVFilterContext* ssim_sink_ = nullptr;
  bool finished_ = false;
  // Sums over the compared frames: ffmpeg's end-of-run PSNR is that of the mean MSE.
  int64_t psnr_frames_ = 0;
  double mse_y_sum_ = 0;
  double mse_avg_sum_ = 0;
  int64_t ssim_frames_ = 0;
  double ssim_sum_ = 0;
};

// One meter per output that encodes video (null for a copy); empty when the spec asks for none.
std::vector<std::unique_ptr<QualityMeter>> make_quality_meters(const JobSpec& spec,
                                                               const Plan& plan);

}  // namespace tc
