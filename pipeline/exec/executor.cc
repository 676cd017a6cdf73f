#include "pipeline/exec/executor.h"

#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>

extern "C" {
#include <libavfilter/buffersink.h>
#include <libavutil/hwcontext.h>
}

#include "pipeline/exec/branch_lane.h"
#include "pipeline/exec/frame_memory.h"
#include "pipeline/exec/hdr_metadata.h"
#include "pipeline/exec/quality_meter.h"
#include "pipeline/exec/source_change.h"
#include "pipeline/exec/source_priming.h"
#include "pipeline/exec/stages.h"
#include "pipeline/exec/thumbnail_writer.h"
#include "pipeline/hw/backends.h"
#include "pipeline/hw/device_cache.h"
#include "pipeline/hw/discovery_cache.h"
#include "pipeline/package/package_writer.h"
#include "pipeline/plan/cores.h"
#include "pipeline/plan/stages.h"

namespace tc {
namespace {

using Clock = std::chrono::steady_clock;

double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return double(t.tv_sec) + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

int interrupt_requested(void* opaque) {
  const auto* cancel = static_cast<const std::atomic<bool>*>(opaque);
  return cancel && cancel->load(std::memory_order_relaxed) ? 1 : 0;
}

// The trimmed window of one stream, in its time base: frames before `start` are dropped, the
// stream ends at `end`, and timestamps are shifted so the output starts at zero.
struct Window {
  int64_t start = 0;
  int64_t end = std::numeric_limits<int64_t>::max();
  bool trims_start = false;  // without a start trim nothing is dropped: AAC priming packets
                             // have negative timestamps and must be kept

  static Window of(const AVStream* stream, double start_s, double duration_s) {
    Window window;
    if (!stream) return window;
    window.start = av_rescale_q(seconds_to_us(start_s), {1, 1000000}, stream->time_base);
    window.trims_start = start_s > 0;
    if (duration_s > 0)
      window.end =
          av_rescale_q(seconds_to_us(start_s + duration_s), {1, 1000000}, stream->time_base);
    return window;
  }
  bool before(int64_t pts) const { return trims_start && pts != AV_NOPTS_VALUE && pts < start; }
  bool past(int64_t pts) const { return pts != AV_NOPTS_VALUE && pts >= end; }
};

// An input audio track some output keeps, through the job.
struct AudioTrackState {
  const InputTrack* input = nullptr;
  Window window;
  const FilterGraphPlan* graph_plan = nullptr;  // null when every output copies it
  SourcePriming priming;                        // decoded priming is not content
  std::optional<FilterGraph> graph;
  bool done = false;
  bool flushed = false;
};

// A kept subtitle track: subtitles are sparse, so they never hold the job open.
struct SubtitleTrackState {
  const InputTrack* input = nullptr;
  Window window;
};

// A decoded subtitle, freed with its rects.
struct DecodedSubtitle {
  AVSubtitle subtitle{};
  bool present = false;
  ~DecodedSubtitle() {
    if (present) avsubtitle_free(&subtitle);
  }
};

class Transcode {
 public:
  Transcode(const Plan& plan, const JobSpec& spec, const MediaInfo& media,
            const RunOptions& options)
      : plan_(plan), spec_(spec), media_(media), options_(options) {}

  Result<JobReport> run() {
    started_ = Clock::now();
    cpu_at_start_ = cpu_seconds();
    blocked_at_start_ = BranchLane::blocked_ns_of_this_thread();
    TC_RETURN_IF_ERROR(open());
    TC_RETURN_IF_ERROR(demux());
    TC_RETURN_IF_ERROR(finish());
    return report();
  }

 private:
  Status open() {
    interrupt_ = {interrupt_requested, const_cast<std::atomic<bool>*>(options_.cancel)};
    if (plan_.device_type != AV_HWDEVICE_TYPE_NONE) {
      TC_ASSIGN_OR_RETURN(device_, open_hw_device(plan_.device_type, plan_.device.path));
    }
    TC_ASSIGN_OR_RETURN(input_,
                        open_input(spec_.input, options_.access, plan_, device_.get(), interrupt_));
    TC_RETURN_IF_ERROR(seek_input(input_, spec_.start_s));
    video_window_ = Window::of(input_.video, spec_.start_s, spec_.duration_s);
    for (const InputTrack& track : input_.audio)
      audio_.push_back({&track, Window::of(track.stream, spec_.start_s, spec_.duration_s),
                        audio_graph_plan(track.stream->index),
                        SourcePriming(*track.stream, spec_.start_s <= 0)});
    for (const InputTrack& track : input_.subtitles)
      subtitles_.push_back({&track, Window::of(track.stream, spec_.start_s, spec_.duration_s)});
    if (plan_.package.on()) {
      TC_ASSIGN_OR_RETURN(package_, package::PackageWriter::create(
                                        plan_.package, *options_.access.roots, options_.attempt));
    }
    for (const OutputPlan& output : plan_.outputs) {
      Result<OutputStage> stage =
          package_
              ? OutputStage::open_rendition(output, outputs_.size(), input_, spec_.input, *package_)
              : OutputStage::open(output, input_, spec_.input, *options_.access.roots, interrupt_,
                                  options_.attempt);
      TC_RETURN_IF_ERROR(stage.status());
      outputs_.push_back(std::move(stage).value());
    }
    if (plan_.thumbnails.on) {
      TC_ASSIGN_OR_RETURN(
          thumbnails_,
          ThumbnailWriter::create(plan_.thumbnails, *options_.access.roots,
                                  package_ ? &package_->dir() : nullptr, options_.attempt));
    }
    duration_s_ = std::max(0.0, media_.duration_s - spec_.start_s);
    if (spec_.duration_s > 0) duration_s_ = std::min(duration_s_, spec_.duration_s);
    for (AudioTrackState& track : audio_) TC_RETURN_IF_ERROR(open_audio_graph(track));
    attach_quality_meters();
    frame_rate_ = av_guess_frame_rate(input_.format.get(), input_.video, nullptr);
    threaded_ = runs_stage_threads(plan_, options_.branch_threads);
    for (size_t k = 0; k < outputs_.size(); ++k)
      lanes_.push_back(std::make_unique<BranchLane>(kBranchQueueFrames, threaded_,
                                                    "tc-out" + std::to_string(k), kEncoderNice));
    video_lane_ = std::make_unique<BranchLane>(kDecodeQueueFrames, threaded_, "tc-graph");
    video_encoder_posted_.assign(outputs_.size(), false);
    if (std::any_of(plan_.outputs.begin(), plan_.outputs.end(),
                    [](const OutputPlan& output) { return output.video.format.to_sdr_on_device; }))
      mastering_fill_.emplace(*input_.video);
    return Status::ok();
  }

  // --quality: each meter sees its output's packets, and every source frame (measure_source).
  void attach_quality_meters() {
    meters_ = make_quality_meters(spec_, plan_);
    for (size_t k = 0; k < meters_.size(); ++k)
      if (QualityMeter* meter = meters_[k].get())
        outputs_[k].observe_video_packets(
            [meter](const AVCodecContext& encoder, const AVPacket& packet) {
              return meter->add_packet(encoder, packet);
            });
  }

  // Downloaded once here; each meter takes it on its output's thread, in order with that
  // output's packets.
  Status measure_source(const AVFrame& frame) {
    if (meters_.empty()) return Status::ok();
    TC_ASSIGN_OR_RETURN(av::FramePtr in_memory,
                        frame_in_memory(frame, "--quality: downloading a source frame"));
    SharedFrame shared = share_frame(std::move(in_memory));
    AVRational time_base = input_.video->time_base;
    for (size_t k = 0; k < meters_.size(); ++k)
      if (QualityMeter* meter = meters_[k].get())
        TC_RETURN_IF_ERROR(to_output(
            k, [meter, shared, time_base] { return meter->add_reference(*shared, time_base); }));
    return Status::ok();
  }

  // Output k writes a copy of `packet` (of input stream `from`, shifted by the trim `offset`) on
  // its thread; an output that does not keep the stream ignores it.
  Status post_copy(size_t k, const std::shared_ptr<AVPacket>& packet, const AVStream& from,
                   int64_t offset) {
    return to_output(k, [&output = outputs_[k], packet, &from, offset] {
      return output.copy_packet(*packet, from, offset);
    });
  }

  static Result<std::shared_ptr<AVPacket>> share_packet(const AVPacket& packet) {
    AVPacket* copy = av_packet_clone(&packet);
    if (!copy) return Status(Code::kInternal, "out of memory");
    return std::shared_ptr<AVPacket>(copy, av::PacketDeleter());
  }

  const FilterGraphPlan* audio_graph_plan(int input_stream) const {
    for (const Plan::AudioGraph& graph : plan_.audio_graphs)
      if (graph.input_stream == input_stream) return &graph.graph;
    return nullptr;
  }

  // Audio parameters are known from the decoder, so audio encoders open up front.
  Status open_audio_graph(AudioTrackState& track) {
    if (!track.graph_plan || !track.input->decoder) return Status::ok();
    TC_ASSIGN_OR_RETURN(track.graph,
                        FilterGraph::create(*track.graph_plan, "ain",
                                            audio_source(*track.input->decoder), nullptr));
    for (size_t i = 0; i < track.graph_plan->sinks.size(); ++i) {
      const GraphSink& sink = track.graph_plan->sinks[i];
      TC_RETURN_IF_ERROR(
          outputs_[sink.output].open_audio_encoder(sink.audio, track.graph->sink(i)));
    }
    return Status::ok();
  }

  bool audio_done() const {
    return std::all_of(audio_.begin(), audio_.end(),
                       [](const AudioTrackState& track) { return track.done; });
  }

  AudioTrackState* audio_track(int index) {
    for (AudioTrackState& track : audio_)
      if (track.input->stream->index == index) return &track;
    return nullptr;
  }

  SubtitleTrackState* subtitle_track(int index) {
    for (SubtitleTrackState& track : subtitles_)
      if (track.input->stream->index == index) return &track;
    return nullptr;
  }

  Status demux() {
    av::PacketPtr packet = av::make_packet();
    for (;;) {
      if (interrupt_requested(interrupt_.opaque)) return {Code::kCancelled, "cancelled"};
      if (video_done_ && audio_done()) return Status::ok();
      int err = av_read_frame(input_.format.get(), packet.get());
      if (err == AVERROR_EOF) return Status::ok();
      if (err < 0) return demux_status(err, "reading " + spec_.input);
      Status status = on_packet(*packet);
      av_packet_unref(packet.get());
      TC_RETURN_IF_ERROR(status);
      report_progress(false);
    }
  }

  Status on_packet(const AVPacket& packet) {
    if (packet.stream_index == input_.video->index)
      return video_done_ ? Status::ok() : on_video_packet(packet);
    if (AudioTrackState* track = audio_track(packet.stream_index))
      return track->done ? Status::ok() : on_audio_packet(*track, packet);
    if (SubtitleTrackState* track = subtitle_track(packet.stream_index))
      return on_subtitle_packet(*track, packet);
    return Status::ok();
  }

  Status on_video_packet(const AVPacket& packet) {
    if (video_window_.past(packet.dts) && video_window_.past(packet.pts) && !input_.video_decoder) {
      video_done_ = true;
      return Status::ok();
    }
    if (!video_window_.past(packet.pts)) TC_RETURN_IF_ERROR(copy_video_packet(packet));
    if (!input_.video_decoder) {
      last_media_pts_s_ =
          std::max(last_media_pts_s_, seconds(packet.pts, input_.video, video_window_));
      return Status::ok();
    }
    return decode_video(&packet);
  }

  Status copy_video_packet(const AVPacket& packet) {
    std::shared_ptr<AVPacket> shared;
    for (size_t k = 0; k < outputs_.size(); ++k) {
      if (!outputs_[k].plan().video_copy) continue;
      if (!shared) {
        TC_ASSIGN_OR_RETURN(shared, share_packet(packet));
      }
      TC_RETURN_IF_ERROR(post_copy(k, shared, *input_.video, video_window_.start));
    }
    return Status::ok();
  }

  Status copy_to_every_output(const AVPacket& packet, const AVStream& from, int64_t offset) {
    TC_ASSIGN_OR_RETURN(std::shared_ptr<AVPacket> shared, share_packet(packet));
    for (size_t k = 0; k < outputs_.size(); ++k)
      TC_RETURN_IF_ERROR(post_copy(k, shared, from, offset));
    return Status::ok();
  }

  Status on_audio_packet(AudioTrackState& track, const AVPacket& packet) {
    if (track.window.past(packet.pts)) {
      track.done = true;
      return flush_audio(track);
    }
    if (!track.window.before(packet.pts))
      TC_RETURN_IF_ERROR(copy_to_every_output(packet, *track.input->stream, track.window.start));
    if (!track.input->decoder) return Status::ok();
    track.priming.on_packet(packet);
    return decode_audio(track, &packet);
  }

  // A subtitle on screen at the cut is kept, from the cut (time 0 in the outputs) to its end;
  // one that ended before the cut is not.
  Status on_subtitle_packet(SubtitleTrackState& track, const AVPacket& original) {
    if (track.window.past(original.pts)) return Status::ok();
    const AVPacket* kept = &original;
    if (track.window.before(original.pts)) {
      int64_t end = original.pts + original.duration;
      if (original.duration <= 0 || end <= track.window.start) return Status::ok();
      av_packet_ref(clipped_subtitle_.get(), &original);
      clipped_subtitle_->pts = clipped_subtitle_->dts = track.window.start;
      clipped_subtitle_->duration = end - track.window.start;
      kept = clipped_subtitle_.get();
    }
    Status status = keep_subtitle_packet(track, *kept);
    av_packet_unref(clipped_subtitle_.get());
    return status;
  }

  Status keep_subtitle_packet(SubtitleTrackState& track, const AVPacket& packet) {
    TC_RETURN_IF_ERROR(copy_to_every_output(packet, *track.input->stream, track.window.start));
    if (!track.input->decoder) return Status::ok();
    auto decoded = std::make_shared<DecodedSubtitle>();
    int got = 0;
    // FFmpeg 5.1 takes a non-const packet, 7.1 a const one; neither changes it.
    int err = avcodec_decode_subtitle2(track.input->decoder.get(), &decoded->subtitle, &got,
                                       const_cast<AVPacket*>(&packet));
    decoded->present = got != 0;
    // A subtitle that does not decode is skipped, as players do.
    if (err < 0 || !got) return Status::ok();
    int64_t offset_us =
        av_rescale_q(track.window.start, track.input->stream->time_base, AVRational{1, 1000000});
    int index = track.input->stream->index;
    for (size_t k = 0; k < outputs_.size(); ++k)
      TC_RETURN_IF_ERROR(to_output(k, [&output = outputs_[k], decoded, index, offset_us] {
        return output.encode_subtitle(index, decoded->subtitle, offset_us);
      }));
    return Status::ok();
  }

  static double seconds(int64_t pts, const AVStream* stream, const Window& window) {
    if (pts == AV_NOPTS_VALUE) return 0;
    return (pts - window.start) * av_q2d(stream->time_base);
  }

  // The device decoder refused the stream before its first frame and has no software path of
  // its own (plan: decode.software_decoder, libdav1d for FFmpeg's av1): the job goes on with
  // that decoder, and its frames take the plan's fallback graph (uploaded first).
  bool reopened_in_software(int err) {
    if (err >= 0 || err == AVERROR(EAGAIN) || err == AVERROR_EOF || video_decoded_ ||
        video_reopened_ || !plan_.decode.hw || plan_.decode.software_decoder.empty())
      return false;
    video_reopened_ = true;
    Result<av::CodecContextPtr> software =
        open_software_video_decoder(*input_.video->codecpar, input_.video->time_base, plan_);
    if (!software.is_ok()) return false;
    input_.video_decoder = std::move(*software);
    return true;
  }

  Status decode_video(const AVPacket* packet) {
    AVCodecContext* decoder = input_.video_decoder.get();
    int err = avcodec_send_packet(decoder, packet);
    if (reopened_in_software(err)) return decode_video(packet);
    // A corrupt packet is skipped, as players do; a lost device is not.
    if (err < 0 && err != AVERROR_EOF && err != AVERROR_INVALIDDATA)
      return av_status(err, plan_.decode.hw ? Code::kDevice : Code::kInput, "decoding video");
    for (;;) {
      err = avcodec_receive_frame(decoder, frame_.get());
      if (err == AVERROR(EAGAIN)) return Status::ok();
      if (err == AVERROR_EOF) return end_video();
      if (err == AVERROR_INVALIDDATA) continue;
      if (reopened_in_software(err)) return decode_video(packet);
      if (err < 0)
        return av_status(err, plan_.decode.hw ? Code::kDevice : Code::kInput, "decoding video");
      video_decoded_ = true;
      TC_RETURN_IF_ERROR(on_decoded_video());
    }
  }

  Status on_decoded_video() {
    AVFrame* frame = frame_.get();
    frame->pts = frame->best_effort_timestamp;
    if (video_window_.before(frame->pts)) {
      av_frame_unref(frame);
      return Status::ok();
    }
    if (video_window_.past(frame->pts)) {
      av_frame_unref(frame);
      if (video_done_) return Status::ok();
      video_done_ = true;
      return end_video();
    }
    last_media_pts_s_ =
        std::max(last_media_pts_s_, seconds(frame->pts, input_.video, video_window_));
    if (frame->pts != AV_NOPTS_VALUE) frame->pts -= video_window_.start;
    ++frames_decoded_;
    if (mastering_fill_) TC_RETURN_IF_ERROR(mastering_fill_->fill(*frame));
    TC_RETURN_IF_ERROR(measure_source(*frame));
    SharedFrame decoded = share_frame(std::move(frame_));
    frame_ = av::make_frame();
    return video_lane_->post([this, decoded] { return filter_video(decoded.get()); });
  }

  // The video graph's end, once.
  Status end_video() {
    if (video_end_posted_) return Status::ok();
    video_end_posted_ = true;
    return video_lane_->post([this] { return filter_video(nullptr); });
  }

  // Work for output k, through the video lane: it reaches the output in the order the serial
  // executor does it, between the video frames the graph gives (which the video lane posts).
  Status to_output(size_t k, BranchLane::Task task) {
    return video_lane_->post(
        [lane = lanes_[k].get(), task = std::move(task)] { return lane->post(task); });
  }

  // On the video lane: the graph is built with the first frame, then fed.
  Status filter_video(AVFrame* frame) {
    if (!frame && (video_flushed_ || !video_graph_)) return Status::ok();
    if (frame && video_graph_ && source_watch_.differs(*frame)) {
      // A mid-stream change (source_change.h): the old graph's frames go to the outputs, whose
      // encoders go on; a graph for the new frames is built below.
      TC_RETURN_IF_ERROR(video_graph_->push(nullptr));
      TC_RETURN_IF_ERROR(drain_video_sinks());
      video_graph_.reset();
      source_watch_.record(*frame, input_.video->time_base);
    }
    if (!video_graph_) {
      AVRational rate = frame_rate_;
      TC_ASSIGN_OR_RETURN(
          video_graph_,
          FilterGraph::create(video_graph_plan(plan_, *frame, source_watch_.changed()), "in",
                              video_source(*frame, input_.video->time_base, rate), device_.get()));
      source_watch_.configured(*frame);
    }
    if (!frame) video_flushed_ = true;
    TC_RETURN_IF_ERROR(video_graph_->push(frame));
    return drain_video_sinks();
  }

  Status drain_video_sinks() {
    for (size_t i = 0; i < video_graph_->sink_count(); ++i) {
      if (plan_.video_graph.sinks[i].thumbnails) {
        TC_RETURN_IF_ERROR(drain_thumbnails(i));
        continue;
      }
      for (;;) {
        av::FramePtr frame = av::make_frame();
        int err = video_graph_->pull(i, frame.get());
        if (err == AVERROR(EAGAIN) || err == AVERROR_EOF) break;
        if (err < 0) return av_status(err, Code::kInternal, "filtering video");
        TC_RETURN_IF_ERROR(post_video_frame(i, share_frame(std::move(frame))));
      }
    }
    return Status::ok();
  }

  // The frame goes to its output's thread; with the first, what the sink says its encoder needs.
  Status post_video_frame(size_t sink, SharedFrame frame) {
    size_t k = plan_.video_graph.sinks[sink].output;
    std::shared_ptr<VideoSinkFormat> format;
    if (!video_encoder_posted_[k]) {
      format = std::make_shared<VideoSinkFormat>(VideoSinkFormat::of(video_graph_->sink(sink)));
      video_encoder_posted_[k] = true;
    }
    AVRational rate = frame_rate_;
    return lanes_[k]->post([this, &output = outputs_[k], format, rate, frame, k] {
      if (format)
        TC_RETURN_IF_ERROR(output.open_video_encoder(
            *format, rate, *frame, {threaded_, "tc-out" + std::to_string(k) + "-gop"}));
      output.mark_keyframe(*frame);
      TC_RETURN_IF_ERROR(output.encode_video(frame.get()));
      frames_encoded_.fetch_add(1, std::memory_order_relaxed);
      double none = -1;
      first_frame_s_.compare_exchange_strong(none, elapsed());
      return Status::ok();
    });
  }

  Status drain_thumbnails(size_t sink) {
    AVRational time_base = av_buffersink_get_time_base(video_graph_->sink(sink));
    for (;;) {
      int err = video_graph_->pull(sink, filtered_.get());
      if (err == AVERROR(EAGAIN) || err == AVERROR_EOF) return Status::ok();
      if (err < 0) return av_status(err, Code::kInternal, "filtering thumbnails");
      Status status = thumbnails_->add(*filtered_, time_base);
      av_frame_unref(filtered_.get());
      TC_RETURN_IF_ERROR(status);
    }
  }

  // The end of the media transcoded: the last frame's time plus its duration.
  double media_end_s() const {
    AVRational rate = frame_rate_;
    return last_media_pts_s_ + (rate.num > 0 && rate.den > 0 ? 1 / av_q2d(rate) : 0);
  }

  Status decode_audio(AudioTrackState& track, const AVPacket* packet) {
    AVCodecContext* decoder = track.input->decoder.get();
    int err = avcodec_send_packet(decoder, packet);
    if (err < 0 && err != AVERROR_EOF && err != AVERROR_INVALIDDATA)
      return av_status(err, Code::kInput, "decoding audio");
    for (;;) {
      err = avcodec_receive_frame(decoder, frame_.get());
      if (err == AVERROR(EAGAIN) || err == AVERROR_EOF) return Status::ok();
      if (err == AVERROR_INVALIDDATA) continue;
      if (err < 0) return av_status(err, Code::kInput, "decoding audio");
      AVFrame* frame = frame_.get();
      frame->pts = frame->best_effort_timestamp;
      if (track.window.before(frame->pts) || track.window.past(frame->pts) ||
          track.priming.covers(*frame)) {
        av_frame_unref(frame);
        continue;
      }
      // The graph's time base is 1/sample_rate.
      if (frame->pts != AV_NOPTS_VALUE)
        frame->pts = av_rescale_q(frame->pts - track.window.start, track.input->stream->time_base,
                                  {1, frame->sample_rate});
      TC_RETURN_IF_ERROR(track.graph->push(frame));
      TC_RETURN_IF_ERROR(drain_audio_sinks(track));
    }
  }

  Status drain_audio_sinks(AudioTrackState& track) {
    for (size_t i = 0; i < track.graph->sink_count(); ++i)
      for (;;) {
        av::FramePtr frame = av::make_frame();
        int err = track.graph->pull(i, frame.get());
        if (err == AVERROR(EAGAIN) || err == AVERROR_EOF) break;
        if (err < 0) return av_status(err, Code::kInternal, "filtering audio");
        size_t k = track.graph_plan->sinks[i].output;
        size_t audio = track.graph_plan->sinks[i].audio;
        TC_RETURN_IF_ERROR(
            to_output(k, [&output = outputs_[k], audio, frame = share_frame(std::move(frame))] {
              return output.encode_audio(audio, frame.get());
            }));
      }
    return Status::ok();
  }

  Status flush_audio(AudioTrackState& track) {
    if (!track.graph || track.flushed) return Status::ok();
    track.flushed = true;
    TC_RETURN_IF_ERROR(decode_audio(track, nullptr));
    TC_RETURN_IF_ERROR(track.graph->push(nullptr));
    return drain_audio_sinks(track);
  }

  Status finish() {
    if (input_.video_decoder && !video_end_posted_) TC_RETURN_IF_ERROR(decode_video(nullptr));
    TC_RETURN_IF_ERROR(end_video());
    for (AudioTrackState& track : audio_) TC_RETURN_IF_ERROR(flush_audio(track));
    TC_RETURN_IF_ERROR(video_lane_->drain());
    if (interrupt_requested(interrupt_.opaque)) return {Code::kCancelled, "cancelled"};
    TC_RETURN_IF_ERROR(finish_outputs());
    if (thumbnails_) TC_RETURN_IF_ERROR(thumbnails_->finish(media_end_s()));
    if (package_) {
      TC_ASSIGN_OR_RETURN(package_report_, package_->finish());
    }
    // Only now, with every output complete, do they get their names, and only if the gate
    // allows (a daemon's attempt that lost its job must not publish over its successor's).
    // A refusal returns before any rename: the partials are removed as the stages are destroyed.
    if (options_.publish_gate) TC_RETURN_IF_ERROR(options_.publish_gate());
    for (OutputStage& output : outputs_) TC_RETURN_IF_ERROR(output.commit());
    if (thumbnails_) TC_RETURN_IF_ERROR(thumbnails_->commit());
    if (package_) TC_RETURN_IF_ERROR(package_->publish());
    report_progress(true);
    return Status::ok();
  }

  // Every output flushes its encoders and writes its trailer on its own thread, side by side.
  Status finish_outputs() {
    for (size_t k = 0; k < outputs_.size(); ++k) {
      QualityMeter* meter = k < meters_.size() ? meters_[k].get() : nullptr;
      TC_RETURN_IF_ERROR(lanes_[k]->post([&output = outputs_[k], meter, &input = spec_.input] {
        TC_RETURN_IF_ERROR(output.finish(input));
        return meter ? meter->finish() : Status::ok();
      }));
    }
    for (auto& lane : lanes_) TC_RETURN_IF_ERROR(lane->drain());
    return Status::ok();
  }

  double elapsed() const { return std::chrono::duration<double>(Clock::now() - started_).count(); }

  Progress progress() const {
    Progress now;
    now.frames_decoded = frames_decoded_;
    now.frames_encoded = frames_encoded_.load(std::memory_order_relaxed);
    now.media_time_s = last_media_pts_s_;
    now.input_duration_s = duration_s_;
    now.elapsed_s = elapsed();
    if (now.elapsed_s > 0) {
      now.fps = frames_decoded_ / now.elapsed_s;
      now.speed = last_media_pts_s_ / now.elapsed_s;
    }
    return now;
  }

  void report_progress(bool force) {
    if (!options_.on_progress) return;
    double now = elapsed();
    if (!force && now - last_progress_s_ < options_.progress_interval_s) return;
    last_progress_s_ = now;
    options_.on_progress(progress());
  }

  JobReport report() const {
    JobReport report;
    report.input = spec_.input;
    report.backend = std::string(name_of(plan_.backend));
    report.backend_reason = plan_.backend_reason;
    report.stages = render_stages(plan_);
    report.streams = plan_.streams;
    report.frames_decoded = frames_decoded_;
    report.wall_s = elapsed();
    report.cpu_s = cpu_seconds() - cpu_at_start_;
    report.first_frame_s = std::max(0.0, first_frame_s_.load());
    for (size_t k = 0; k < outputs_.size(); ++k) {
      report.outputs.push_back(output_report(outputs_[k]));
      if (k < meters_.size() && meters_[k]) report.outputs.back().quality = meters_[k]->score();
    }
    report.package = package_report_;
    if (thumbnails_) report.thumbnails = thumbnails_->report();
    report.source_changes = source_watch_.changes();
    if (runs_stage_threads(plan_, options_.branch_threads))
      report.threads = thread_reports(report.wall_s);
    report.media_duration_s = last_media_pts_s_;
    for (const OutputReport& output : report.outputs)
      report.media_duration_s = std::max(report.media_duration_s, output.duration_s);
    if (report.wall_s > 0) {
      report.fps = frames_decoded_ / report.wall_s;
      report.speed = report.media_duration_s / report.wall_s;
    }
    return report;
  }

  // The demux thread (this one) decodes; its waiting is on the video lane and the drains.
  std::vector<ThreadReport> thread_reports(double wall_s) const {
    auto seconds = [](int64_t ns) { return static_cast<double>(ns) / 1e9; };
    double decode_blocked_s = seconds(BranchLane::blocked_ns_of_this_thread() - blocked_at_start_);
    std::vector<ThreadReport> threads{
        {"decode", std::max(0.0, wall_s - decode_blocked_s), decode_blocked_s},
        {"video graph", seconds(video_lane_->busy_ns()), seconds(video_lane_->blocked_ns())}};
    for (size_t k = 0; k < lanes_.size(); ++k)
      threads.push_back({"out" + std::to_string(k), seconds(lanes_[k]->busy_ns()),
                         seconds(lanes_[k]->blocked_ns())});
    return threads;
  }

  OutputReport output_report(const OutputStage& output) const {
    const OutputPlan& plan = output.plan();
    OutputReport report;
    report.path = plan.path;
    report.encoder = plan.video_copy ? "copy" : plan.video.encoder;
    report.device = plan.video.device.to_string();  // cpu for a copy
    report.width = plan.width;
    report.height = plan.height;
    report.frames = output.counters().video_frames;
    report.duration_s = output.counters().last_video_pts_us / 1e6;
    report.bytes = output.counters().bytes;
    report.chunks = output.counters().chunks;
    if (report.duration_s > 0) report.bitrate = int64_t(report.bytes * 8 / report.duration_s);
    return report;
  }

  const Plan& plan_;
  const JobSpec& spec_;
  const MediaInfo& media_;
  const RunOptions& options_;
  AVIOInterruptCB interrupt_{};
  av::BufferRefPtr device_;
  InputStage input_;
  std::unique_ptr<package::PackageWriter> package_;  // a package job's; destroyed after outputs_
  std::optional<PackageReport> package_report_;
  std::vector<OutputStage> outputs_;
  std::unique_ptr<ThumbnailWriter> thumbnails_;        // writes into package_'s directory, if any
  std::vector<std::unique_ptr<QualityMeter>> meters_;  // per output; empty without --quality
  std::vector<AudioTrackState> audio_;
  std::vector<SubtitleTrackState> subtitles_;
  std::optional<FilterGraph> video_graph_;
  SourceWatch source_watch_;  // what video_graph_ was built for
  av::FramePtr frame_ = av::make_frame();
  av::FramePtr filtered_ = av::make_frame();
  av::PacketPtr clipped_subtitle_ = av::make_packet();  // a subtitle cut at the trim start
  Window video_window_;
  bool video_done_ = false;
  bool video_decoded_ = false;   // the video decoder has given a frame
  bool video_reopened_ = false;  // ... or was replaced by the software one (once)
  // tonemap_vaapi: every frame needs mastering display metadata.
  std::optional<MasteringDisplayFill> mastering_fill_;
  bool video_flushed_ = false;     // on the video lane
  bool video_end_posted_ = false;  // on the demux thread
  AVRational frame_rate_{0, 1};    // the source's, as libavformat guesses it
  int64_t frames_decoded_ = 0;
  std::atomic<int64_t> frames_encoded_ = 0;  // counted on the outputs' threads
  double last_media_pts_s_ = 0;
  double duration_s_ = 0;
  std::atomic<double> first_frame_s_ = -1;
  double last_progress_s_ = 0;
  Clock::time_point started_;
  double cpu_at_start_ = 0;
  int64_t blocked_at_start_ = 0;  // this thread's waiting on lanes before the job
  // Per output, the thread its work runs on. Last: its tasks use the members above, so the
  // lanes stop (dropping what is queued) before any of them goes.
  bool threaded_ = true;                    // each output (and GOP chunk) works on its own thread
  std::vector<char> video_encoder_posted_;  // the encoder's opening is on its lane already
  std::vector<std::unique_ptr<BranchLane>> lanes_;
  // The video graph's thread: decoded frames and every output's other work go through it, so
  // each output gets its work in the serial order. Stops first: its tasks post to lanes_.
  std::unique_ptr<BranchLane> video_lane_;
};

}  // namespace

Result<FinishedJob> execute(const Plan& plan, const JobSpec& spec, const MediaInfo& media,
                            const RunOptions& options) {
  if (!options.access.roots) return Status(Code::kInternal, "no roots to read and write below");
  auto pipeline = std::make_shared<Transcode>(plan, spec, media, options);
  TC_ASSIGN_OR_RETURN(JobReport report, pipeline->run());
  return FinishedJob{std::move(report), std::move(pipeline)};
}

namespace {

// The devices a job is planned with: those handed over when they hold the job's backend (a
// daemon discovered them once) or are all it may use, else discovered now (through the cache
// when there is one).
HwInventory job_devices(const JobSpec& spec, const RunOptions& options) {
  bool any_device = spec.backend == BackendKind::kAuto || spec.backend == BackendKind::kSoftware;
  if (options.devices &&
      (options.devices_only || any_device || options.devices->find(spec.backend, spec.device)))
    return *options.devices;
  return discover_cached(discovery_for(spec, options.discovery), options.discovery_cache_dir);
}

}  // namespace

Result<PreparedJob> prepare_job(const JobSpec& spec, const RunOptions& options,
                                const SourceCheck& check_source) {
  Clock::time_point setup_start = Clock::now();
  TC_RETURN_IF_ERROR(validate(spec));
  TC_ASSIGN_OR_RETURN(MediaInfo media, probe(spec.input, options.access));
  if (check_source) TC_RETURN_IF_ERROR(check_source(media));
  HwInventory devices = job_devices(spec, options);
  TC_ASSIGN_OR_RETURN(Plan plan, make_plan(spec, media, devices));
  int gop_parallel = spec.gop_parallel != 0 ? spec.gop_parallel : options.gop_parallel;
  plan_for_this_machine(plan, gop_parallel, options.branch_threads);
  double setup_s = std::chrono::duration<double>(Clock::now() - setup_start).count();
  return PreparedJob{std::move(media), std::move(plan), setup_s};
}

Result<FinishedJob> run_prepared(const PreparedJob& job, const JobSpec& spec,
                                 const RunOptions& options) {
  TC_ASSIGN_OR_RETURN(FinishedJob finished, execute(job.plan, spec, job.media, options));
  finished.report.setup_s = job.setup_s;
  return finished;
}

Result<JobReport> run_job(const JobSpec& spec, const RunOptions& options) {
  TC_ASSIGN_OR_RETURN(PreparedJob job, prepare_job(spec, options));
  TC_ASSIGN_OR_RETURN(FinishedJob finished, run_prepared(job, spec, options));
  return std::move(finished.report);
}

}  // namespace tc
