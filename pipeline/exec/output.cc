extern "C" {
#include <libavfilter/buffersink.h>
#include <libavutil/hwcontext.h>
#include <libavutil/opt.h>
}

#include <algorithm>
#include <cstring>
#include <vector>

#include "pipeline/core/compat.h"
#include "pipeline/exec/executor.h"
#include "pipeline/exec/hdr_metadata.h"
#include "pipeline/exec/stages.h"
#include "pipeline/exec/webvtt_text.h"
#include "pipeline/hw/backends.h"
#include "pipeline/package/package_writer.h"
#include "pipeline/plan/video_format.h"

namespace tc {
namespace {

av::DictionaryPtr dictionary(const Options& options) {
  AVDictionary* dict = nullptr;
  for (const auto& [key, value] : options) av_dict_set(&dict, key.c_str(), value.c_str(), 0);
  return av::DictionaryPtr(dict);
}

// Private options the encoder did not take are a planning bug: say which.
Status open_encoder(AVCodecContext* encoder, const AVCodec* codec, const Options& options,
                    Code failure_code) {
  av::DictionaryPtr dict = dictionary(options);
  AVDictionary* raw = dict.release();
  int err = avcodec_open2(encoder, codec, &raw);
  dict.reset(raw);
  if (err < 0) return av_status(err, failure_code, std::string("opening encoder ") + codec->name);
  if (const AVDictionaryEntry* left = av_dict_get(dict.get(), "", nullptr, AV_DICT_IGNORE_SUFFIX))
    return {Code::kInternal, std::string(codec->name) + " has no option '" + left->key + "'"};
  return Status::ok();
}

// What the ffmpeg CLI does before its muxer (fftools/ffmpeg_mux.c): a packet whose dts is past
// its pts gets a guess between them and the last dts, and a dts that does not follow the last
// one is moved up to it (pts with it). A corrupt input's timestamps then cost a little timing
// accuracy, not the whole job; muxers refuse non-monotonic dts with EINVAL.
void sanitize_timestamps(AVPacket* packet, int64_t& last_dts, bool strict) {
  int64_t& pts = packet->pts;
  int64_t& dts = packet->dts;
  // A corrupt input's timestamps reach INT64 limits: every step here saturates instead of
  // overflowing (UBSan found `163920 + 9223372036854766808` in a mutated TS).
  auto after = [](int64_t t) { return t < INT64_MAX ? t + 1 : t; };
  if (pts != AV_NOPTS_VALUE && dts != AV_NOPTS_VALUE && dts > pts) {
    int64_t next = last_dts == AV_NOPTS_VALUE ? dts : after(last_dts);
    // The median of pts, dts and the next dts, by comparisons (a sum could overflow).
    int64_t guess = std::max(std::min(pts, dts), std::min(std::max(pts, dts), next));
    pts = dts = guess;
  }
  if (dts != AV_NOPTS_VALUE && last_dts != AV_NOPTS_VALUE) {
    int64_t min_dts = strict ? after(last_dts) : last_dts;
    if (dts < min_dts) {
      if (pts != AV_NOPTS_VALUE && pts >= dts) pts = std::max(pts, min_dts);
      dts = min_dts;
    }
  }
  if (dts != AV_NOPTS_VALUE) last_dts = dts;
}

// Copies the stream's codec parameters, for stream copy.
void copy_parameters(const AVStream& from, AVStream* to) {
  avcodec_parameters_copy(to->codecpar, from.codecpar);
  to->codecpar->codec_tag = 0;
  to->time_base = from.time_base;
}

// A new output stream for input stream `from`, with what players show of it: language,
// title (its metadata) and disposition (default, forced, hearing impaired, ...).
AVStream* new_track_stream(AVFormatContext* format, const AVStream& from) {
  AVStream* stream = avformat_new_stream(format, nullptr);
  if (!stream) return nullptr;
  av_dict_copy(&stream->metadata, from.metadata, 0);
  stream->disposition = from.disposition;
  // FFmpeg's MP4 muxer writes no track title; the track's handler name is where MP4 tools
  // (HandBrake, MP4Box) keep one, and ffprobe shows it as handler_name.
  const AVDictionaryEntry* title = av_dict_get(from.metadata, "title", nullptr, 0);
  if (title && std::strcmp(format->oformat->name, "mp4") == 0)
    av_dict_set(&stream->metadata, "handler_name", title->value, 0);
  return stream;
}

// Text subtitles converted to another text format: the decoder's ASS header (styles) goes to
// the encoder, as the ffmpeg CLI does; times are in microseconds.
Result<av::CodecContextPtr> open_subtitle_encoder(const std::string& name,
                                                  const AVCodecContext& decoder,
                                                  const OutputPlan& plan) {
  const AVCodec* codec = avcodec_find_encoder_by_name(name.c_str());
  if (!codec) return Status(Code::kUnsupported, "encoder " + name + " is not in this FFmpeg");
  av::CodecContextPtr encoder(avcodec_alloc_context3(codec));
  encoder->time_base = AV_TIME_BASE_Q;
  encoder->width = plan.width;
  encoder->height = plan.height;
  if (decoder.subtitle_header_size > 0) {
    encoder->subtitle_header = static_cast<uint8_t*>(av_mallocz(decoder.subtitle_header_size + 1));
    if (!encoder->subtitle_header) return Status(Code::kInternal, "out of memory");
    std::memcpy(encoder->subtitle_header, decoder.subtitle_header, decoder.subtitle_header_size);
    encoder->subtitle_header_size = decoder.subtitle_header_size;
  }
  TC_RETURN_IF_ERROR(open_encoder(encoder.get(), codec, {}, Code::kUnsupported));
  return encoder;
}

// What ffmpeg gives avcodec_encode_subtitle: ample for any text subtitle.
constexpr int kSubtitleBufferBytes = 1 << 20;

// The plan's colour tags; where it left one unspecified, the first frame's. An 8-bit output is
// still never tagged HDR or BT.2020 (check_format).
Result<ColorTags> written_color(const VideoEncodePlan& plan, const AVFrame& first) {
  const ColorTags& tags = plan.format.color;
  auto pick = [](auto planned, auto unspecified, auto from_frame) {
    return planned != unspecified ? planned : from_frame;
  };
  VideoFormatPlan written = plan.format;
  written.color = {pick(tags.primaries, AVCOL_PRI_UNSPECIFIED, first.color_primaries),
                   pick(tags.transfer, AVCOL_TRC_UNSPECIFIED, first.color_trc),
                   pick(tags.matrix, AVCOL_SPC_UNSPECIFIED, first.colorspace),
                   pick(tags.range, AVCOL_RANGE_UNSPECIFIED, first.color_range)};
  TC_RETURN_IF_ERROR(check_format(written, plan.encoder));
  return written.color;
}

// Everything an output's video encoder opens with, worked out once from its first frame: the
// encoder of each of its chunks (exec/chunked_encoder.h) opens with the same.
struct VideoEncoderSetup {
  const AVCodec* codec = nullptr;
  VideoEncodePlan plan;  // a copy: a chunk's encoder opens on its own thread, later
  int width = 0;
  int height = 0;
  AVRational sample_aspect_ratio{0, 1};
  AVRational time_base{0, 1};
  AVRational frame_rate{0, 1};
  AVPixelFormat pix_fmt = AV_PIX_FMT_NONE;
  std::shared_ptr<AVBufferRef> hw_frames;  // the sink's frames context, for a device encoder
  ColorTags color;
  bool global_header = false;
  Options options;
};

Result<av::CodecContextPtr> open_video_encoder_with(const VideoEncoderSetup& setup) {
  const VideoEncodePlan& plan = setup.plan;
  av::CodecContextPtr encoder(avcodec_alloc_context3(setup.codec));
  if (!encoder) return Status(Code::kInternal, "out of memory");
  encoder->width = setup.width;
  encoder->height = setup.height;
  encoder->sample_aspect_ratio = setup.sample_aspect_ratio;
  encoder->time_base = setup.time_base;
  encoder->framerate = setup.frame_rate;
  encoder->pix_fmt = setup.pix_fmt;
  if (setup.hw_frames)
    encoder->hw_frames_ctx = av_buffer_ref(setup.hw_frames.get());
  else
    encoder->thread_count = plan.encoder_threads;  // 0: auto
  encoder->color_primaries = setup.color.primaries;
  encoder->color_trc = setup.color.transfer;
  encoder->colorspace = setup.color.matrix;
  encoder->color_range = setup.color.range;
  if (plan.progressive) encoder->field_order = AV_FIELD_PROGRESSIVE;
  if (plan.field_order != AV_FIELD_UNKNOWN) encoder->field_order = plan.field_order;
  if (plan.codes_fields)
    encoder->flags |= AV_CODEC_FLAG_INTERLACED_DCT | AV_CODEC_FLAG_INTERLACED_ME;
  encoder->bit_rate = plan.bit_rate;
  encoder->rc_max_rate = plan.max_rate;
  encoder->rc_buffer_size = static_cast<int>(plan.buffer_size);
  encoder->gop_size = plan.gop;
  if (plan.max_b_frames >= 0) encoder->max_b_frames = plan.max_b_frames;
  if (setup.global_header) encoder->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  TC_RETURN_IF_ERROR(open_encoder(encoder.get(), setup.codec, setup.options,
                                  plan.hw_frames ? Code::kDevice : Code::kUnsupported));
  return encoder;
}

// The plan's encoder options, with the frames' HDR parameters for a software encoder that takes
// them so, where the output keeps HDR and the container declared none.
Options encoder_options(const VideoEncodePlan& plan, const HdrMetadata& hdr) {
  Options options = plan.options;
  if (!plan.format.hdr_metadata || plan.hw_frames || plan.hdr_params_declared) return options;
  const SwEncoderDesc& encoder = software_encoder(plan.codec);
  add_hdr_params(encoder.hdr_params, encoder.params_option, hdr, options);
  return options;
}

}  // namespace

std::string partial_path(const std::string& path, int attempt) {
  auto slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  return dir +
         io::partial_name(slash == std::string::npos ? path : path.substr(slash + 1), attempt);
}

Result<OutputStage> OutputStage::open(const OutputPlan& plan, const InputStage& input,
                                      const std::string& input_path, const io::Roots& roots,
                                      const AVIOInterruptCB& interrupt, int attempt) {
  TC_ASSIGN_OR_RETURN(io::DirEntry dir, roots.open_output_dir(plan.path));
  TC_ASSIGN_OR_RETURN(io::TempFile temp, io::TempFile::create(std::move(dir), plan.path, attempt));
  ScopedFd file = temp.take_file();
  int file_fd = file.get();
  OutputStage output(plan, std::move(temp));
  output.input_path_ = input_path;
  output.input_video_ = input.video;
  TC_ASSIGN_OR_RETURN(output.io_, io::make_fd_avio(std::move(file), io::AvioMode::kWrite));
  output.nested_->own_file = file_fd;  // owned by io_, which lives as long as the muxer
  AVFormatContext* raw = nullptr;
  if (int err = avformat_alloc_output_context2(&raw, nullptr, plan.format.c_str(),
                                               output.temp_->path().c_str());
      err < 0)
    return av_status(err, Code::kUnsupported, "container " + plan.format);
  output.format_.reset(raw);
  raw->interrupt_callback = interrupt;
  raw->pb = output.io_.get();
  raw->flags |= AVFMT_FLAG_CUSTOM_IO;  // io_ owns the AVIO: the context must not close it
  io::confine_nested_opens(raw, output.nested_.get());
  output.video_ = avformat_new_stream(raw, nullptr);
  if (plan.video_copy) copy_parameters(*input.video, output.video_);
  output.video_->codecpar->codec_tag = plan.video_tag;
  // A copied stream keeps the source's display rotation; encoded pixels were turned upright.
  if (plan.display_matrix)
    av::copy_stream_side_data(input.video, output.video_, AV_PKT_DATA_DISPLAYMATRIX);
  TC_RETURN_IF_ERROR(output.add_tracks(input));
  output.last_dts_.assign(raw->nb_streams, AV_NOPTS_VALUE);
  TC_RETURN_IF_ERROR(output.write_header_when_ready());  // an output that only copies is ready
  return output;
}

Result<OutputStage> OutputStage::open_rendition(const OutputPlan& plan, size_t index,
                                                const InputStage& input,
                                                const std::string& input_path,
                                                package::PackageWriter& package) {
  OutputStage output(plan, std::nullopt);
  output.input_path_ = input_path;
  output.input_video_ = input.video;
  output.package_ = &package;
  output.rendition_ = index;
  // The context only holds the streams (codec parameters, time bases) for the segmenters'
  // muxers: it is never written.
  AVFormatContext* raw = nullptr;
  if (int err = avformat_alloc_output_context2(&raw, nullptr, "mp4", nullptr); err < 0)
    return av_status(err, Code::kUnsupported, "container mp4");
  output.format_.reset(raw);
  raw->flags |= AVFMT_FLAG_CUSTOM_IO;
  output.video_ = avformat_new_stream(raw, nullptr);
  TC_RETURN_IF_ERROR(output.add_tracks(input));
  output.last_dts_.assign(raw->nb_streams, AV_NOPTS_VALUE);
  return output;
}

OutputStage::~OutputStage() = default;

void OutputStage::mark_keyframe(AVFrame& frame) {
  frame.pict_type = AV_PICTURE_TYPE_NONE;
  int64_t interval = plan_.video.keyframe_interval_us;
  if (interval <= 0 || !package_ || frame.pts == AV_NOPTS_VALUE || !video_encoder_) return;
  int64_t at = av_rescale_q(frame.pts, video_encoder_->time_base, AVRational{1, 1000000});
  package::SegmentGrid& grid = package_->video_grid();
  if (next_keyframe_us_ == INT64_MIN) grid.anchor(at);
  if (!package::SegmentGrid::reached(at, next_keyframe_us_)) return;
  // As the ffmpeg CLI's -force_key_frames: the first frame at or past the boundary.
  frame.pict_type = AV_PICTURE_TYPE_I;
  next_keyframe_us_ = grid.boundary_after(at);
}

Status OutputStage::open_segmenters() {
  segmenters_.assign(format_->nb_streams, nullptr);
  TC_ASSIGN_OR_RETURN(segmenters_[video_->index],
                      package_->add_video(rendition_, plan_.path, *video_));
  text_renditions_.assign(format_->nb_streams, nullptr);
  for (const Track& track : tracks_) {
    AVMediaType type = track.stream->codecpar->codec_type;
    if (type == AVMEDIA_TYPE_SUBTITLE) {
      TC_ASSIGN_OR_RETURN(text_renditions_[track.stream->index],
                          package_->add_subtitles(track.input_stream, *track.stream));
    }
    if (type != AVMEDIA_TYPE_AUDIO) continue;
    TC_ASSIGN_OR_RETURN(
        segmenters_[track.stream->index],
        package_->add_audio(track.input_stream, track.stereo_rendition, *track.stream));
  }
  return Status::ok();
}

Status OutputStage::finish_segmenters() {
  for (package::TrackSegmenter* segmenter : segmenters_)
    if (segmenter) {
      TC_RETURN_IF_ERROR(segmenter->finish());
      counters_.bytes += segmenter->measure().init_bytes;
      for (const auto& segment : segmenter->measure().segments) counters_.bytes += segment.bytes;
    }
  return Status::ok();
}

Status OutputStage::add_tracks(const InputStage& input) {
  auto add = [&](int input_stream, bool copy) -> Result<Track*> {
    const InputTrack* source = input.track(input_stream);
    if (!source)
      return Status(Code::kInternal, "input stream " + std::to_string(input_stream) + " not open");
    Track track{input_stream, new_track_stream(format_.get(), *source->stream), nullptr, copy};
    if (!track.stream) return Status(Code::kInternal, "out of memory adding a stream");
    if (copy) copy_parameters(*source->stream, track.stream);
    tracks_.push_back(std::move(track));
    return &tracks_.back();
  };
  for (const AudioPlan& audio : plan_.audio) {
    TC_ASSIGN_OR_RETURN(Track * track,
                        add(audio.input_stream, audio.mode == AudioPlan::Mode::kCopy));
    track->stereo_rendition = audio.stereo_rendition;
  }
  for (const SubtitlePlan& subtitle : plan_.subtitles) {
    TC_ASSIGN_OR_RETURN(Track * track, add(subtitle.input_stream, subtitle.encoder.empty()));
    if (track->copy) continue;
    TC_ASSIGN_OR_RETURN(track->encoder,
                        open_subtitle_encoder(subtitle.encoder,
                                              *input.track(subtitle.input_stream)->decoder, plan_));
    if (int err = avcodec_parameters_from_context(track->stream->codecpar, track->encoder.get());
        err < 0)
      return av_status(err, Code::kInternal, "subtitle stream parameters");
    track->stream->time_base = AV_TIME_BASE_Q;
  }
  return Status::ok();
}

OutputStage::Track* OutputStage::track_of(int input_stream) {
  for (Track& track : tracks_)
    if (track.input_stream == input_stream) return &track;
  return nullptr;
}

VideoSinkFormat VideoSinkFormat::of(const AVFilterContext* sink) {
  VideoSinkFormat format;
  format.width = av_buffersink_get_w(sink);
  format.height = av_buffersink_get_h(sink);
  format.sample_aspect_ratio = av_buffersink_get_sample_aspect_ratio(sink);
  format.time_base = av_buffersink_get_time_base(sink);
  format.format = static_cast<AVPixelFormat>(av_buffersink_get_format(sink));
  format.hw_frames = av::ref(av_buffersink_get_hw_frames_ctx(sink));
  return format;
}

Status OutputStage::open_video_encoder(const VideoSinkFormat& sink, AVRational frame_rate,
                                       const AVFrame& first, const EncoderThreads& threads) {
  const VideoEncodePlan& plan = plan_.video;
  auto setup = std::make_shared<VideoEncoderSetup>();
  setup->codec = avcodec_find_encoder_by_name(plan.encoder.c_str());
  if (!setup->codec)
    return {Code::kUnsupported, "encoder " + plan.encoder + " is not in this FFmpeg"};
  setup->plan = plan;
  setup->width = sink.width;
  setup->height = sink.height;
  setup->sample_aspect_ratio = sink.sample_aspect_ratio;
  setup->time_base = sink.time_base;
  // --fps: the rate the graph's fps filter gives (the sink's time base is its inverse).
  if (plan.frame_rate.num > 0) frame_rate = plan.frame_rate;
  setup->frame_rate = frame_rate;
  setup->pix_fmt = sink.format;
  // Device frames for a software encoder: it takes them downloaded (chunked_encoder.cc).
  if (!plan.hw_frames && sink.hw_frames)
    setup->pix_fmt = reinterpret_cast<const AVHWFramesContext*>(sink.hw_frames->data)->sw_format;
  if (plan.hw_frames) {
    if (!sink.hw_frames) return {Code::kInternal, "no device frames reach " + plan.encoder};
    setup->hw_frames.reset(av_buffer_ref(sink.hw_frames.get()), av::BufferRefDeleter());
  }
  TC_ASSIGN_OR_RETURN(setup->color, written_color(plan, first));
  HdrMetadata hdr = hdr_metadata_of(first, *input_video_);
  setup->global_header = format_->oformat->flags & AVFMT_GLOBALHEADER;
  setup->options = encoder_options(plan, hdr);
  TC_ASSIGN_OR_RETURN(video_encoder_, open_video_encoder_with(*setup));
  ChunkedEncoder::Settings chunking{plan.parallel_encoders, plan.chunk_frames,
                                    plan.keyframe_interval_us > 0, threads.threaded, threads.name};
  video_chunks_ = std::make_unique<ChunkedEncoder>(
      chunking, video_encoder_.get(), [setup] { return open_video_encoder_with(*setup); });
  AVCodecContext* encoder = video_encoder_.get();
  if (int err = avcodec_parameters_from_context(video_->codecpar, encoder); err < 0)
    return av_status(err, Code::kInternal, "video stream parameters");
  video_->codecpar->codec_tag = plan_.video_tag;
  if (plan.format.hdr_metadata) TC_RETURN_IF_ERROR(add_hdr_side_data(hdr, *video_));
  video_->time_base = encoder->time_base;
  video_->avg_frame_rate = frame_rate;
  return write_header_when_ready();
}

Status OutputStage::open_audio_encoder(size_t audio, AVFilterContext* sink) {
  Track* track = audio_track(audio);
  if (!track) return {Code::kInternal, "no audio track " + std::to_string(audio)};
  const AudioPlan* plan = &plan_.audio[audio];
  const AVCodec* codec = avcodec_find_encoder_by_name(plan->encoder.c_str());
  if (!codec) return {Code::kUnsupported, "encoder " + plan->encoder + " is not in this FFmpeg"};
  track->encoder.reset(avcodec_alloc_context3(codec));
  AVCodecContext* encoder = track->encoder.get();
  encoder->sample_rate = av_buffersink_get_sample_rate(sink);
  encoder->sample_fmt = static_cast<AVSampleFormat>(av_buffersink_get_format(sink));
  if (int err = av_buffersink_get_ch_layout(sink, &encoder->ch_layout); err < 0)
    return av_status(err, Code::kInternal, "audio channel layout");
  encoder->time_base = AVRational{1, encoder->sample_rate};
  encoder->bit_rate = plan->bit_rate;
  if (format_->oformat->flags & AVFMT_GLOBALHEADER) encoder->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  TC_RETURN_IF_ERROR(open_encoder(encoder, codec, {}, Code::kUnsupported));
  // AAC takes fixed-size frames: the sink cuts them.
  if (!(codec->capabilities & AV_CODEC_CAP_VARIABLE_FRAME_SIZE))
    av_buffersink_set_frame_size(sink, encoder->frame_size);
  if (int err = avcodec_parameters_from_context(track->stream->codecpar, encoder); err < 0)
    return av_status(err, Code::kInternal, "audio stream parameters");
  track->stream->time_base = encoder->time_base;
  return write_header_when_ready();
}

Status OutputStage::write_header_when_ready() {
  bool video_ready = plan_.video_copy || video_encoder_;
  bool tracks_ready = std::all_of(tracks_.begin(), tracks_.end(),
                                  [](const Track& track) { return track.copy || track.encoder; });
  if (header_written_ || !video_ready || !tracks_ready) return Status::ok();
  if (package_) {
    TC_RETURN_IF_ERROR(open_segmenters());
    header_written_ = true;
    for (Waiting& waiting : waiting_)
      TC_RETURN_IF_ERROR(write(waiting.packet.get(), waiting.stream, waiting.time_base));
    waiting_.clear();
    return Status::ok();
  }
  av::DictionaryPtr options = dictionary(plan_.mux_options);
  AVDictionary* raw = options.release();
  int err = avformat_write_header(format_.get(), &raw);
  options.reset(raw);
  if (err < 0) return av_status(err, Code::kOutput, "writing the header of " + plan_.path);
  header_written_ = true;
  for (Waiting& waiting : waiting_)
    TC_RETURN_IF_ERROR(write(waiting.packet.get(), waiting.stream, waiting.time_base));
  waiting_.clear();
  return Status::ok();
}

Status OutputStage::write(AVPacket* packet, AVStream* stream, AVRational from_time_base) {
  if (!header_written_) {
    av::PacketPtr copy = av::make_packet();
    av_packet_move_ref(copy.get(), packet);
    waiting_.push_back({std::move(copy), stream, from_time_base});
    return Status::ok();
  }
  packet->stream_index = stream->index;
  av_packet_rescale_ts(packet, from_time_base, stream->time_base);
  if (!(format_->oformat->flags & AVFMT_NOTIMESTAMPS))
    sanitize_timestamps(packet, last_dts_[stream->index],
                        !(format_->oformat->flags & AVFMT_TS_NONSTRICT));
  if (stream == video_) {
    int64_t end = packet->pts + std::max<int64_t>(packet->duration, 0);
    counters_.last_video_pts_us = std::max(
        counters_.last_video_pts_us, av_rescale_q(end, stream->time_base, AVRational{1, 1000000}));
  }
  if (package_ && text_renditions_[stream->index])
    return text_renditions_[stream->index]->add(*packet, stream->time_base);
  if (package_) return segmenters_[stream->index]->write(packet, stream->time_base);
  // After sanitizing, EINVAL or invalid data is the muxer refusing what the input carried (a
  // packet it cannot place): an input error, naming the input. I/O errors (ENOSPC, EIO) stay
  // the output's.
  if (int err = av_interleaved_write_frame(format_.get(), packet); err < 0) {
    if (err == AVERROR(EINVAL) || err == AVERROR_INVALIDDATA)
      return av_status(err, Code::kInput, input_path_ + ": muxing into " + plan_.path);
    return av_status(err, Code::kOutput, "writing " + plan_.path);
  }
  return Status::ok();
}

Status OutputStage::drain(AVCodecContext* encoder, AVStream* stream) {
  av::PacketPtr packet = av::make_packet();
  for (;;) {
    int err = avcodec_receive_packet(encoder, packet.get());
    if (err == AVERROR(EAGAIN) || err == AVERROR_EOF) return Status::ok();
    if (err < 0) return encoder_failure(err, *encoder);
    TC_RETURN_IF_ERROR(write(packet.get(), stream, encoder->time_base));
    av_packet_unref(packet.get());
  }
}

Status OutputStage::write_video_packet(AVPacket* packet) {
  const AVCodecContext& encoder = *video_encoder_;  // every chunk's encodes in its time base
  // Encoders leave video packet durations unset; the muxer needs the last one.
  if (packet->duration == 0 && encoder.framerate.num > 0)
    packet->duration = av_rescale_q(1, av_inv_q(encoder.framerate), encoder.time_base);
  if (video_observer_) TC_RETURN_IF_ERROR(video_observer_(encoder, *packet));
  return write(packet, video_, encoder.time_base);
}

Status OutputStage::encode_video(const AVFrame* frame) {
  if (!video_encoder_) return Status::ok();
  if (frame) ++counters_.video_frames;
  Status status =
      video_chunks_->encode(frame, [this](AVPacket* packet) { return write_video_packet(packet); });
  counters_.chunks = video_chunks_->chunks();
  return status;
}

Status OutputStage::encode_audio(size_t audio, const AVFrame* frame) {
  Track* track = audio_track(audio);
  if (!track || !track->encoder) return Status::ok();
  int err = avcodec_send_frame(track->encoder.get(), frame);
  if (err < 0 && err != AVERROR_EOF) return av_status(err, Code::kInternal, "encoding audio");
  return drain(track->encoder.get(), track->stream);
}

// As the ffmpeg CLI does (do_subtitle_out): the display start moves into the packet's time,
// the display end becomes its duration.
Status OutputStage::encode_subtitle(int input_stream, const AVSubtitle& subtitle,
                                    int64_t offset_us) {
  Track* track = track_of(input_stream);
  if (!track || track->copy || subtitle.pts == AV_NOPTS_VALUE) return Status::ok();
  if (ends_before_start(subtitle)) return Status::ok();  // dropped: see webvtt_text.h
  AVSubtitle shifted = subtitle;                         // shares the rects; only the times change
  // For WebVTT, copies of the rects whose ASS text is escaped (the decoded rects are shared
  // by every output).
  std::vector<std::string> texts;
  std::vector<AVSubtitleRect> rects;
  std::vector<AVSubtitleRect*> rect_pointers;
  if (track->encoder->codec_id == AV_CODEC_ID_WEBVTT) {
    texts.reserve(subtitle.num_rects);
    rects.reserve(subtitle.num_rects);
    for (unsigned i = 0; i < subtitle.num_rects; ++i) {
      rects.push_back(*subtitle.rects[i]);
      if (rects.back().ass) {
        texts.push_back(escape_ass_text_for_webvtt(rects.back().ass));
        rects.back().ass = texts.back().data();
      }
      rect_pointers.push_back(&rects.back());
    }
    shifted.rects = rect_pointers.data();
  }
  shifted.pts = subtitle.pts - offset_us + int64_t(subtitle.start_display_time) * 1000;
  shifted.end_display_time -= subtitle.start_display_time;
  shifted.start_display_time = 0;
  std::vector<uint8_t> buffer(kSubtitleBufferBytes);
  int size =
      avcodec_encode_subtitle(track->encoder.get(), buffer.data(), int(buffer.size()), &shifted);
  if (size < 0)
    return av_status(size, Code::kInput,
                     input_path_ + ": converting subtitles to " + track->encoder->codec->name);
  if (size == 0) return Status::ok();
  av::PacketPtr packet = av::make_packet();
  if (int err = av_new_packet(packet.get(), size); err < 0)
    return av_status(err, Code::kInternal, "subtitle packet");
  std::memcpy(packet->data, buffer.data(), size_t(size));
  packet->pts = packet->dts = shifted.pts;
  packet->duration = int64_t(shifted.end_display_time) * 1000;
  return write(packet.get(), track->stream, AV_TIME_BASE_Q);
}

Status OutputStage::copy_packet(const AVPacket& packet, const AVStream& from, int64_t offset_pts) {
  AVStream* stream = video_;
  if (from.codecpar->codec_type != AVMEDIA_TYPE_VIDEO) {
    Track* track = track_of(from.index);
    if (!track || !track->copy) return Status::ok();
    stream = track->stream;
  }
  av::PacketPtr copy = av::make_packet();
  av_packet_ref(copy.get(), &packet);
  if (copy->pts != AV_NOPTS_VALUE) copy->pts -= offset_pts;
  if (copy->dts != AV_NOPTS_VALUE) copy->dts -= offset_pts;
  copy->pos = -1;
  if (stream == video_) ++counters_.video_frames;
  return write(copy.get(), stream, from.time_base);
}

Status OutputStage::finish(const std::string& input) {
  TC_RETURN_IF_ERROR(encode_video(nullptr));
  for (size_t audio = 0; audio < plan_.audio.size(); ++audio)
    TC_RETURN_IF_ERROR(encode_audio(audio, nullptr));
  // An input error names the input (found by the mutation corpus test: it named the output).
  if (!header_written_)
    return {Code::kInput,
            input + ": no video frames could be decoded (nothing to write to " + plan_.path + ")"};
  if (package_) return finish_segmenters();
  if (int err = av_write_trailer(format_.get()); err < 0)
    return av_status(err, Code::kOutput, "finishing " + plan_.path);
  if (int err = io::flush_fd_avio(io_.get()); err < 0)
    return av_status(err, Code::kOutput, "writing " + plan_.path);
  counters_.bytes = avio_size(io_.get());
  return Status::ok();
}

}  // namespace tc
