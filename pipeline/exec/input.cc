#include <cstdint>

#include "pipeline/exec/stages.h"

extern "C" {
#include <libavutil/pixdesc.h>
}

namespace tc {

AVPixelFormat software_format(const AVPixelFormat* offered) {
  for (const AVPixelFormat* format = offered; *format != AV_PIX_FMT_NONE; ++format) {
    const AVPixFmtDescriptor* desc = av_pix_fmt_desc_get(*format);
    if (desc && !(desc->flags & AV_PIX_FMT_FLAG_HWACCEL)) return *format;
  }
  return AV_PIX_FMT_NONE;
}

namespace {

// The decoder's get_format: take the device format the plan chose. When the hwaccel refuses
// this stream after all (a profile, chroma or size the driver lacks: it is then not offered),
// take the software format: the executor then uploads before the graph (Plan: decode.upload
// after the fact), as the ffmpeg CLI falls back.
AVPixelFormat pick_device_format(AVCodecContext* decoder, const AVPixelFormat* offered) {
  auto wanted = static_cast<AVPixelFormat>(reinterpret_cast<intptr_t>(decoder->opaque));
  for (const AVPixelFormat* format = offered; *format != AV_PIX_FMT_NONE; ++format)
    if (*format == wanted) return wanted;
  return software_format(offered);
}

const AVCodec* planned_decoder(const AVStream& stream, const Plan* video_plan) {
  if (video_plan && !video_plan->decode.decoder.empty())
    return avcodec_find_decoder_by_name(video_plan->decode.decoder.c_str());
  return avcodec_find_decoder(stream.codecpar->codec_id);
}

Result<av::CodecContextPtr> open_decoder(const AVStream& stream, const Plan* video_plan,
                                         const AVBufferRef* device) {
  const AVCodec* codec = planned_decoder(stream, video_plan);
  std::string name = avcodec_get_name(stream.codecpar->codec_id);
  if (!codec) return Status(Code::kUnsupported, "no decoder for " + name + " in this FFmpeg");
  av::CodecContextPtr decoder(avcodec_alloc_context3(codec));
  if (int err = avcodec_parameters_to_context(decoder.get(), stream.codecpar); err < 0)
    return av_status(err, Code::kInput, "decoder parameters for " + name);
  decoder->pkt_timebase = stream.time_base;
  decoder->thread_count = 0;  // auto, as the ffmpeg CLI does (libavcodec's default is 1)
  if (video_plan) {
    const DecodePlan& plan = video_plan->decode;
    if (plan.threads) decoder->thread_count = plan.threads;
    if (plan.hw) {
      decoder->hw_device_ctx = av_buffer_ref(device);
      decoder->opaque = reinterpret_cast<void*>(static_cast<intptr_t>(video_plan->hw_format));
      decoder->get_format = pick_device_format;
      decoder->extra_hw_frames = plan.extra_hw_frames;
    }
  }
  if (int err = avcodec_open2(decoder.get(), codec, nullptr); err < 0)
    return av_status(err, video_plan && video_plan->decode.hw ? Code::kDevice : Code::kInput,
                     "opening the " + name + " decoder");
  return decoder;
}

// What the outputs do with input stream `index`: kept by any, decoded for any.
struct TrackUse {
  bool kept = false;
  bool decoded = false;
};

TrackUse use_of(const Plan& plan, int index) {
  TrackUse use;
  for (const OutputPlan& output : plan.outputs) {
    for (const AudioPlan& audio : output.audio)
      if (audio.input_stream == index) {
        use.kept = true;
        use.decoded |= audio.mode == AudioPlan::Mode::kEncode;
      }
    for (const SubtitlePlan& subtitle : output.subtitles)
      if (subtitle.input_stream == index) {
        use.kept = true;
        use.decoded |= !subtitle.encoder.empty();
      }
  }
  return use;
}

// The audio and subtitle streams some output keeps, with a decoder where one converts them.
Status open_tracks(const Plan& plan, InputStage& input) {
  AVFormatContext* raw = input.format.get();
  for (unsigned i = 0; i < raw->nb_streams; ++i) {
    AVStream* stream = raw->streams[i];
    AVMediaType type = stream->codecpar->codec_type;
    TrackUse use = use_of(plan, int(i));
    if (!use.kept || (type != AVMEDIA_TYPE_AUDIO && type != AVMEDIA_TYPE_SUBTITLE)) continue;
    InputTrack track{stream, nullptr};
    if (use.decoded) {
      TC_ASSIGN_OR_RETURN(track.decoder, open_decoder(*stream, nullptr, nullptr));
    }
    (type == AVMEDIA_TYPE_AUDIO ? input.audio : input.subtitles).push_back(std::move(track));
  }
  return Status::ok();
}

}  // namespace

Result<InputStage> open_input(const std::string& path, const io::Access& access, const Plan& plan,
                              const AVBufferRef* device, const AVIOInterruptCB& interrupt) {
  TC_ASSIGN_OR_RETURN(io::MediaInput opened, io::open_media_input(path, access, &interrupt));
  InputStage input;
  input.source = std::move(opened.source);
  input.format = std::move(opened.format);
  AVFormatContext* raw = input.format.get();
  int video = av_find_best_stream(raw, AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
  if (video < 0) return Status(Code::kInput, path + ": has no video stream");
  input.video = raw->streams[video];
  TC_RETURN_IF_ERROR(open_tracks(plan, input));
  // Streams we do not use are not demuxed further than needed.
  for (unsigned i = 0; i < raw->nb_streams; ++i)
    if (raw->streams[i] != input.video && !input.track(int(i)))
      raw->streams[i]->discard = AVDISCARD_ALL;
  if (plan.decode.needed) {
    TC_ASSIGN_OR_RETURN(input.video_decoder, open_decoder(*input.video, &plan, device));
  }
  return input;
}

Result<av::CodecContextPtr> open_software_video_decoder(const AVCodecParameters& parameters,
                                                        AVRational time_base, const Plan& plan) {
  const std::string& name = plan.decode.software_decoder;
  const AVCodec* codec = name.empty() ? nullptr : avcodec_find_decoder_by_name(name.c_str());
  if (!codec) return Status(Code::kUnsupported, "no software decoder to take over from the device");
  av::CodecContextPtr decoder(avcodec_alloc_context3(codec));
  if (!decoder) return Status(Code::kInternal, "out of memory");
  if (int err = avcodec_parameters_to_context(decoder.get(), &parameters); err < 0)
    return av_status(err, Code::kInput, "decoder parameters for " + name);
  decoder->pkt_timebase = time_base;
  decoder->thread_count = 0;  // auto: it decodes every frame now
  if (int err = avcodec_open2(decoder.get(), codec, nullptr); err < 0)
    return av_status(err, Code::kInput, "opening the " + name + " decoder");
  return decoder;
}

const InputTrack* InputStage::track(int index) const {
  for (const std::vector<InputTrack>* tracks : {&audio, &subtitles})
    for (const InputTrack& track : *tracks)
      if (track.stream->index == index) return &track;
  return nullptr;
}

Status seek_input(InputStage& input, double start_s) {
  if (start_s <= 0) return Status::ok();
  int64_t target = seconds_to_us(start_s);  // AV_TIME_BASE is microseconds
  if (int err = avformat_seek_file(input.format.get(), -1, INT64_MIN, target, target, 0); err < 0)
    return demux_status(err, "seeking to " + std::to_string(start_s) + " s");
  return Status::ok();
}

}  // namespace tc
