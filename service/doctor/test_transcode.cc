#include "service/doctor/test_transcode.h"

#include <stdlib.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavformat/avformat.h>
#include <libavutil/dict.h>
}

#include "pipeline/core/av.h"
#include "pipeline/exec/executor.h"
#include "pipeline/hw/backends.h"
#include "pipeline/io/access.h"

namespace tc::doctor {
namespace {

constexpr int kSourceWidth = 1280;
constexpr int kSourceHeight = 720;
constexpr int kOutputWidth = 640;  // the scale step: half the source
constexpr int kOutputHeight = 360;
constexpr double kMinPsnr = 30;  // dB: below it the frames are wrong, not merely compressed

// A directory of its own under `parent`, removed with everything in it.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& parent) {
    std::string pattern = parent + "/tc-doctor-XXXXXX";
    if (mkdtemp(pattern.data())) path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

Status av_status(int ret, const std::string& what) {
  return Status(Code::kInternal, what + ": " + av_error_text(ret));
}

// Runs a filter graph made only of sources (testsrc2, movie) into a buffersink and hands
// `take` every frame it gives.
Status pull_frames(const std::string& description,
                   const std::function<Status(const AVFrame&)>& take) {
  av::FilterGraphPtr graph(avfilter_graph_alloc());
  if (!graph) return Status(Code::kInternal, "out of memory");
  AVFilterContext* sink = nullptr;
  int ret = avfilter_graph_create_filter(&sink, avfilter_get_by_name("buffersink"), "out", nullptr,
                                         nullptr, graph.get());
  if (ret < 0) return av_status(ret, "buffersink");
  AVFilterInOut* raw_inputs = nullptr;
  AVFilterInOut* raw_outputs = nullptr;
  ret = avfilter_graph_parse2(graph.get(), description.c_str(), &raw_inputs, &raw_outputs);
  av::FilterInOutPtr inputs(raw_inputs);
  av::FilterInOutPtr outputs(raw_outputs);
  if (ret < 0) return av_status(ret, description);
  if (!outputs || outputs->next || inputs)
    return Status(Code::kInternal, description + ": not a graph of sources with one output");
  if ((ret = avfilter_link(outputs->filter_ctx, outputs->pad_idx, sink, 0)) < 0 ||
      (ret = avfilter_graph_config(graph.get(), nullptr)) < 0)
    return av_status(ret, description);
  av::FramePtr frame = av::make_frame();
  while ((ret = av_buffersink_get_frame(sink, frame.get())) >= 0) {
    Status taken = take(*frame);
    av_frame_unref(frame.get());
    TC_RETURN_IF_ERROR(taken);
  }
  return ret == AVERROR_EOF ? Status::ok() : av_status(ret, description);
}

// Writes every packet the encoder has ready; `frame` null drains it.
Status encode(AVCodecContext& encoder, const AVFrame* frame, AVFormatContext& muxer) {
  int ret = avcodec_send_frame(&encoder, frame);
  if (ret < 0) return av_status(ret, "encode");
  av::PacketPtr packet = av::make_packet();
  while ((ret = avcodec_receive_packet(&encoder, packet.get())) >= 0) {
    av_packet_rescale_ts(packet.get(), encoder.time_base, muxer.streams[0]->time_base);
    packet->stream_index = 0;
    if ((ret = av_interleaved_write_frame(&muxer, packet.get())) < 0)
      return av_status(ret, "write");
  }
  return ret == AVERROR(EAGAIN) || ret == AVERROR_EOF ? Status::ok() : av_status(ret, "encode");
}

Result<av::CodecContextPtr> open_source_encoder(const AVFormatContext& muxer) {
  std::string name(software_encoder(VideoCodec::kH264).name);
  const AVCodec* codec = avcodec_find_encoder_by_name(name.c_str());
  if (!codec) return Status(Code::kUnsupported, name + " is not in this libavcodec");
  av::CodecContextPtr encoder(avcodec_alloc_context3(codec));
  if (!encoder) return Status(Code::kInternal, "out of memory");
  encoder->width = kSourceWidth;
  encoder->height = kSourceHeight;
  encoder->pix_fmt = AV_PIX_FMT_YUV420P;
  encoder->time_base = AVRational{1, 30};
  if (muxer.oformat->flags & AVFMT_GLOBALHEADER) encoder->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  AVDictionary* settings = nullptr;
  av_dict_set(&settings, "crf", "12", 0);  // near-lossless: the PSNR then measures the device
  av_dict_set(&settings, "preset", "veryfast", 0);
  int ret = avcodec_open2(encoder.get(), codec, &settings);
  av::DictionaryPtr unused(settings);
  if (ret < 0) return av_status(ret, name);
  return encoder;
}

}  // namespace

// 8-bit 4:2:0 H.264: every Intel GPU decodes it.
Status write_test_clip(const std::string& path) {
  AVFormatContext* raw = nullptr;
  int ret = avformat_alloc_output_context2(&raw, nullptr, "matroska", path.c_str());
  if (ret < 0) return av_status(ret, path);
  av::OutputFormatPtr muxer(raw);
  TC_ASSIGN_OR_RETURN(av::CodecContextPtr encoder, open_source_encoder(*muxer));
  AVStream* stream = avformat_new_stream(muxer.get(), nullptr);
  if (!stream) return Status(Code::kInternal, "out of memory");
  stream->time_base = encoder->time_base;
  avcodec_parameters_from_context(stream->codecpar, encoder.get());
  if ((ret = avio_open(&muxer->pb, path.c_str(), AVIO_FLAG_WRITE)) < 0 ||
      (ret = avformat_write_header(muxer.get(), nullptr)) < 0)
    return av_status(ret, path);
  int64_t pts = 0;
  TC_RETURN_IF_ERROR(pull_frames("testsrc2=size=" + std::to_string(kSourceWidth) + "x" +
                                     std::to_string(kSourceHeight) +
                                     ":rate=30:duration=1,format=yuv420p",
                                 [&](const AVFrame& frame) {
                                   av::FramePtr copy(av_frame_clone(&frame));
                                   if (!copy) return Status(Code::kInternal, "out of memory");
                                   copy->pts = pts++;
                                   return encode(*encoder, copy.get(), *muxer);
                                 }));
  TC_RETURN_IF_ERROR(encode(*encoder, nullptr, *muxer));
  if ((ret = av_write_trailer(muxer.get())) < 0) return av_status(ret, path);
  return Status::ok();
}

// From the psnr filter's per-frame mean squared error, averaged over frames as the filter's own
// summary does.
Result<double> test_clip_psnr(const std::string& output, const std::string& source) {
  std::string size = std::to_string(kOutputWidth) + ":" + std::to_string(kOutputHeight);
  double mse_sum = 0;
  int frames = 0;
  TC_RETURN_IF_ERROR(
      pull_frames("movie=filename='" + output + "',format=yuv420p[out];movie=filename='" + source +
                      "',scale=" + size + ",format=yuv420p[ref];[out][ref]psnr",
                  [&](const AVFrame& frame) {
                    const AVDictionaryEntry* mse =
                        av_dict_get(frame.metadata, "lavfi.psnr.mse_avg", nullptr, 0);
                    if (mse) {
                      mse_sum += std::atof(mse->value);
                      ++frames;
                    }
                    return Status::ok();
                  }));
  if (frames == 0) return Status(Code::kInternal, "psnr measured no frame");
  double mse = mse_sum / frames;
  return mse <= 0 ? 100.0 : 10 * std::log10(255.0 * 255.0 / mse);
}

namespace {

std::string stage_devices(const JobReport& report) {
  std::string text;
  for (const Stage& stage : report.stages)
    text += (text.empty() ? "" : ", ") + stage.name + " on " + stage.device.to_string();
  return text;
}

Check transcode_once(const HwDevice& device, VideoCodec codec, const std::string& source,
                     const std::string& dir) {
  std::string subject = device.path + " " + std::string(name_of(codec));
  Check check{"test-transcode", subject, CheckStatus::kFail, "", ""};
  JobSpec spec;
  spec.input = source;
  spec.backend = BackendKind::kVaapi;
  spec.device = device.path;
  OutputSpec output;
  output.path = dir + "/out-" + std::string(name_of(codec)) + ".mkv";
  output.codec = codec;
  output.width = kOutputWidth;
  output.height = kOutputHeight;
  output.audio = AudioMode::kNone;
  spec.outputs.push_back(output);
  RunOptions options;
  Result<io::Access> access = io::caller_access();
  if (!access.is_ok())
    return {check.name, subject, CheckStatus::kFail, access.status().message(),
            "run doctor from a directory this user may read"};
  options.access = std::move(*access);
  Result<JobReport> report = run_job(spec, options);
  if (!report.is_ok()) {
    check.seen = report.status().message();
    check.fix =
        "the device failed a job for a codec it lists: see the checks above for a cause; else "
        "run `transcode run -v --backend vaapi` on a clip and report libav's log";
    return check;
  }
  Result<double> quality = test_clip_psnr(output.path, source);
  if (!quality.is_ok()) {
    check.seen = "transcoded, but PSNR could not be measured: " + quality.status().message();
    check.fix = "the output is not readable media: report it with `transcode run -v`'s log";
    return check;
  }
  char psnr_text[32];
  std::snprintf(psnr_text, sizeof psnr_text, "PSNR %.1f dB", *quality);
  check.seen = std::string(psnr_text) + "; " + stage_devices(*report);
  if (*quality < kMinPsnr) {
    check.fix =
        "the device's output is damaged (PSNR under 30 dB): update the VA driver "
        "(intel-media-va-driver) and the GPU firmware";
    return check;
  }
  check.status = CheckStatus::kPass;
  return check;
}

}  // namespace

std::vector<Check> test_transcodes(const Options& options, const HwInventory& inventory) {
  std::vector<const HwDevice*> devices;
  for (const HwDevice& device : inventory.devices)
    if (device.backend == BackendKind::kVaapi && device.usable()) devices.push_back(&device);
  if (devices.empty())
    return {{"test-transcode", "", CheckStatus::kSkip, "no usable VA-API device", ""}};
  ScratchDir dir(options.temp_dir);
  std::string source = dir.path() + "/source.mkv";
  if (Status written = dir.path().empty() ? Status(Code::kOutput, "cannot create a directory in " +
                                                                      options.temp_dir)
                                          : write_test_clip(source);
      !written.is_ok())
    return {{"test-transcode", "", CheckStatus::kSkip,
             "cannot make the test clip: " + written.message(), ""}};
  std::vector<Check> checks;
  for (const HwDevice* device : devices)
    for (VideoCodec codec :
         {VideoCodec::kH264, VideoCodec::kHevc, VideoCodec::kVp9, VideoCodec::kAv1})
      if (device->encodes(codec_id(codec)))
        checks.push_back(transcode_once(*device, codec, source, dir.path()));
  return checks;
}

}  // namespace tc::doctor
