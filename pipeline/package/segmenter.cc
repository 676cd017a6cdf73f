#include "pipeline/package/segmenter.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>

#include "pipeline/core/compat.h"
#include "pipeline/package/codec_string.h"
#include "pipeline/spec/package_spec.h"

namespace tc::package {
namespace {

constexpr int kAvioBufferBytes = 64 * 1024;
constexpr AVRational kMicroseconds{1, 1000000};
int64_t bits_per_second(int64_t bytes, double seconds) {
  return seconds > 0 ? int64_t(bytes * 8 / seconds) : 0;
}

// The rates a frame interval read in a coarse time base stands for: in milliseconds a 60 fps
// frame lasts 16 or 17 ms (62.5 or 58.8 fps).
constexpr AVRational kCommonRates[] = {{24000, 1001}, {24, 1}, {25, 1},  {30000, 1001},
                                       {30, 1},       {48, 1}, {50, 1},  {60000, 1001},
                                       {60, 1},       {90, 1}, {100, 1}, {120, 1}};
constexpr double kCommonRateTolerance = 0.05;

// The frame rate of frames `interval` ticks of `time_base` apart: the common rate within 5% of
// it, else the exact one.
AVRational rate_of_interval(int64_t interval, AVRational time_base) {
  AVRational exact{0, 1};
  av_reduce(&exact.num, &exact.den, time_base.den, interval * time_base.num, INT_MAX);
  AVRational nearest = exact;
  double best = kCommonRateTolerance;
  for (AVRational common : kCommonRates) {
    double off = std::abs(av_q2d(common) / av_q2d(exact) - 1);
    if (off <= best) {
      best = off;
      nearest = common;
    }
  }
  return nearest;
}

}  // namespace

double TrackMeasure::duration_s() const {
  double total = 0;
  for (const SegmentMeasure& segment : segments) total += seconds(segment.duration);
  return total;
}

int64_t TrackMeasure::peak_bitrate() const {
  long target = 1;
  for (const SegmentMeasure& segment : segments)
    target = std::max(target, std::lround(seconds(segment.duration)));
  int64_t peak = 0;
  for (size_t first = 0; first < segments.size(); ++first) {
    int64_t bytes = 0;
    double run = 0;
    for (size_t last = first; last < segments.size() && run <= 1.5 * target; ++last) {
      bytes += segments[last].bytes;
      run += seconds(segments[last].duration);
      if (run >= 0.5 * target && run <= 1.5 * target)
        peak = std::max(peak, bits_per_second(bytes, run));
    }
  }
  // No run fits (a track shorter than half a target duration): the whole track.
  return peak > 0 ? peak : average_bitrate();
}

int64_t TrackMeasure::average_bitrate() const {
  int64_t bytes = 0;
  for (const SegmentMeasure& segment : segments) bytes += segment.bytes;
  return bits_per_second(bytes, duration_s());
}

int TrackSegmenter::write_bytes(void* opaque, av::AvioWriteBuffer data, int size) {
  auto* self = static_cast<TrackSegmenter*>(opaque);
  if (!self->file_.is_open()) return AVERROR(EBADF);
  int done = 0;
  while (done < size) {
    ssize_t n = ::write(self->file_.get(), data + done, size_t(size - done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      self->write_error_ = errno;
      return AVERROR(errno);
    }
    done += int(n);
  }
  self->file_bytes_ += size;
  if (self->measure_.type == AVMEDIA_TYPE_VIDEO)
    self->written_.append(reinterpret_cast<const char*>(data), size_t(size));
  return size;
}

Result<std::unique_ptr<TrackSegmenter>> TrackSegmenter::open(PackageDir& dir,
                                                             const TrackSetup& setup,
                                                             const AVStream& stream) {
  std::unique_ptr<TrackSegmenter> track(new TrackSegmenter(dir));
  track->setup_ = setup;
  if (!setup.grid) track->own_grid_ = std::make_unique<SegmentGrid>(setup.interval_us);
  track->grid_ = setup.grid ? setup.grid : track->own_grid_.get();
  const SegmentContainer& container = segment_container(setup.format);
  track->container_ = &container;
  TC_ASSIGN_OR_RETURN(track->dir_fd_, dir.make_subdir(setup.name));
  if (container.has_init()) {
    std::string init = container.init_name;
    TC_ASSIGN_OR_RETURN(track->file_,
                        dir.create_file(track->dir_fd_, init, setup.name + "/" + init));
  }
  auto* buffer = static_cast<unsigned char*>(av_malloc(kAvioBufferBytes));
  if (!buffer) return Status(Code::kInternal, "out of memory");
  track->io_ = avio_alloc_context(buffer, kAvioBufferBytes, 1, track.get(), nullptr,
                                  &TrackSegmenter::write_bytes, nullptr);
  if (!track->io_) {
    av_free(buffer);
    return Status(Code::kInternal, "out of memory");
  }
  track->io_->seekable = 0;
  AVFormatContext* raw = nullptr;
  if (int err = avformat_alloc_output_context2(&raw, nullptr, container.muxer, nullptr); err < 0)
    return av_status(err, Code::kUnsupported, std::string("the ") + container.muxer + " muxer");
  track->format_.reset(raw);
  raw->pb = track->io_;
  raw->flags |= AVFMT_FLAG_CUSTOM_IO;
  track->stream_ = avformat_new_stream(raw, nullptr);
  if (!track->stream_) return Status(Code::kInternal, "out of memory");
  avcodec_parameters_copy(track->stream_->codecpar, stream.codecpar);
  // hvc1 (parameter sets in the init segment only) is the tag Apple's players take.
  bool hvc1 = container.has_init() && stream.codecpar->codec_id == AV_CODEC_ID_HEVC;
  track->stream_->codecpar->codec_tag = hvc1 ? MKTAG('h', 'v', 'c', '1') : 0;
  track->stream_->time_base = stream.time_base;
  track->stream_->avg_frame_rate = setup.frame_rate;
  av_dict_copy(&track->stream_->metadata, stream.metadata, 0);
  // HDR10's static metadata: the mp4 muxer writes it as the init segment's mdcv and clli.
  for (AVPacketSideDataType type :
       {AV_PKT_DATA_MASTERING_DISPLAY_METADATA, AV_PKT_DATA_CONTENT_LIGHT_LEVEL})
    if (!av::copy_stream_side_data(&stream, track->stream_, type))
      return Status(Code::kInternal, "out of memory");
  if (!setup.language.empty())
    av_dict_set(&track->stream_->metadata, "language", setup.language.c_str(), 0);
  AVDictionary* options = nullptr;
  prepare_muxer(container, *raw, &options);
  int err = avformat_write_header(raw, &options);
  av_dict_free(&options);
  if (err < 0) return av_status(err, Code::kOutput, "writing the header of " + setup.name);
  // Without an init segment, whatever the header wrote stays in the AVIO buffer and goes into
  // the first segment.
  if (container.has_init()) avio_flush(track->io_);
  if (track->write_error_)
    return av_status(AVERROR(track->write_error_), Code::kOutput, "writing " + setup.name);
  TrackMeasure& measure = track->measure_;
  measure.name = setup.name;
  measure.format = setup.format;
  measure.type = stream.codecpar->codec_type;
  measure.time_base = track->stream_->time_base;
  measure.codec = codec_string(*track->stream_->codecpar);
  measure.width = stream.codecpar->width;
  measure.height = stream.codecpar->height;
  measure.frame_rate = setup.frame_rate;
  measure.language = setup.language;
  measure.title = setup.title;
  measure.disposition = setup.disposition;
  measure.source_stream = setup.source_stream;
  measure.primaries = stream.codecpar->color_primaries;
  measure.transfer = stream.codecpar->color_trc;
  measure.matrix = stream.codecpar->color_space;
  measure.sample_aspect_ratio = stream.codecpar->sample_aspect_ratio;
  measure.channels = stream.codecpar->ch_layout.nb_channels;
  measure.sample_rate = stream.codecpar->sample_rate;
  measure.init_bytes = track->file_bytes_;
  measure.media_shift = media_shift(container, track->stream_->time_base);
  track->file_.reset();
  return track;
}

TrackSegmenter::~TrackSegmenter() {
  format_.reset();
  if (io_) {
    av_freep(&io_->buffer);
    avio_context_free(&io_);
  }
}

Status TrackSegmenter::end_segment(bool last) {
  if (!segment_open_) return Status::ok();
  // An empty packet flushes what the muxer holds: mp4's fragment (the segment's moof + mdat),
  // mpegts's pending PES. The trailer flushes the last one (and writes nothing else: mp4's
  // skip_trailer; mpegts has none).
  int err = last ? av_write_trailer(format_.get()) : av_write_frame(format_.get(), nullptr);
  if (err < 0) return av_status(err, Code::kOutput, "writing a segment of " + setup_.name);
  avio_flush(io_);
  if (write_error_)
    return av_status(AVERROR(write_error_), Code::kOutput, "writing " + setup_.name);
  SegmentMeasure& segment = measure_.segments.back();
  segment.bytes = file_bytes_;
  measure_keyframes();
  segment.duration = segment_end_ - segment.start;
  file_.reset();
  segment_open_ = false;
  return Status::ok();
}

Status TrackSegmenter::start_segment(const AVPacket& packet) {
  TC_RETURN_IF_ERROR(end_segment(false));
  int number = int(measure_.segments.size()) + 1;
  std::string name = segment_file(*container_, setup_.segment_name, number);
  TC_ASSIGN_OR_RETURN(file_, dir_.create_file(dir_fd_, name, setup_.name + "/" + name));
  file_bytes_ = 0;
  written_.clear();
  keyframe_writes_.clear();
  if (int err = begin_segment(*container_, *format_); err < 0)
    return av_status(err, Code::kInternal, "starting a segment of " + setup_.name);
  // The previous segment ends where this one starts (a gap in pts is the previous one's).
  if (!measure_.segments.empty())
    measure_.segments.back().duration = packet.pts - measure_.segments.back().start;
  measure_.segments.push_back({packet.pts, 0, 0, (packet.flags & AV_PKT_FLAG_KEY) != 0});
  segment_end_ = packet.pts;
  segment_open_ = true;
  return Status::ok();
}

// AAC from millisecond timestamps (MKV, FLV): the packets' times jitter by up to a millisecond
// around the samples' real times, which would make sample durations of 1008 or 1056 where every
// frame is 1024. A packet within half a frame of where the previous one ends is placed there; a
// larger difference is a real gap in the audio and stays.
void TrackSegmenter::retime_audio(AVPacket& packet) {
  if (measure_.type != AVMEDIA_TYPE_AUDIO || packet.duration <= 0) return;
  if (next_audio_pts_ != AV_NOPTS_VALUE &&
      std::abs(packet.pts - next_audio_pts_) * 2 < packet.duration) {
    int64_t shift = next_audio_pts_ - packet.pts;
    packet.pts += shift;
    packet.dts += shift;
  }
  next_audio_pts_ = packet.pts + packet.duration;
}

Status TrackSegmenter::write(AVPacket* packet, AVRational time_base) {
  av_packet_rescale_ts(packet, time_base, stream_->time_base);
  packet->stream_index = 0;
  packet->pos = -1;
  retime_audio(*packet);
  if (reorder_delay_ == AV_NOPTS_VALUE)
    reorder_delay_ = std::max<int64_t>(packet->pts - packet->dts, 0);
  bool key = (packet->flags & AV_PKT_FLAG_KEY) != 0;
  int64_t pts_us = av_rescale_q(packet->pts, stream_->time_base, kMicroseconds);
  if (!pending_.empty() && key && SegmentGrid::reached(pts_us, pending_boundary_us_))
    TC_RETURN_IF_ERROR(flush_pending(false));
  if (!anchored_) {
    grid_->anchor(av_rescale_q(packet->pts + priming(), stream_->time_base, kMicroseconds));
    anchored_ = true;
  }
  if (pending_.empty()) pending_boundary_us_ = grid_->boundary_after(pts_us);
  av::PacketPtr held = av::make_packet();
  if (!held) return Status(Code::kInternal, "out of memory");
  av_packet_move_ref(held.get(), packet);
  pending_.push_back(std::move(held));
  return Status::ok();
}

// The encoder's decode times lag after a still gap (x264 gives the first packets of a GOP the
// pts of the frames before the gap), which would decode a screen recording's segment 1.5 s
// before it is shown (players that place a fragment by its tfdt show it that early).
// The first packets of the pending segment whose dts lag behind its start are spread evenly
// from the gapless decode time to the first packet that does not lag, as they would be
// without the gap. Decode order and pts are untouched.
void TrackSegmenter::decode_times() {
  if (pending_.empty()) return;
  // Where the segment's keyframe would be decoded without the gap: its pts less the B-frames'
  // delay.
  int64_t low = pending_.front()->pts - reorder_delay_;
  size_t lagging = 0;
  while (lagging < pending_.size() && pending_[lagging]->dts < low) ++lagging;
  if (lagging == 0) return;
  int64_t high = lagging < pending_.size() ? pending_[lagging]->dts : pending_.front()->pts + 1;
  if (high - low < int64_t(lagging)) return;
  for (size_t k = 0; k < lagging; ++k)
    pending_[k]->dts = low + (high - low) * int64_t(k) / int64_t(lagging);
}

// Writes the pending segment but its last packet, which waits for the next segment's decode
// times to end its duration (`last`: the track's end, it is written with its own). The packet
// held from the segment before is written first, lasting until this one's first packet.
Status TrackSegmenter::flush_pending(bool last) {
  decode_times();
  auto write_after = [&](av::PacketPtr& packet, const AVPacket* next, bool starts) -> Status {
    if (next && next->dts > packet->dts) {
      packet->duration = next->dts - packet->dts;
      if (shortest_interval_ == 0 || packet->duration < shortest_interval_)
        shortest_interval_ = packet->duration;
    }
    return mux(*packet, starts);
  };
  if (tail_)
    TC_RETURN_IF_ERROR(write_after(tail_, pending_.empty() ? nullptr : pending_.front().get(),
                                   tail_starts_segment_));
  tail_.reset();
  for (size_t i = 0; i + 1 < pending_.size(); ++i)
    TC_RETURN_IF_ERROR(write_after(pending_[i], pending_[i + 1].get(), i == 0));
  if (!pending_.empty()) {
    tail_ = std::move(pending_.back());
    tail_starts_segment_ = pending_.size() == 1;
  }
  pending_.clear();
  if (last && tail_) {
    TC_RETURN_IF_ERROR(mux(*tail_, tail_starts_segment_));
    tail_.reset();
  }
  return Status::ok();
}

int64_t TrackSegmenter::priming() const {
  const AVCodecParameters& codec = *stream_->codecpar;
  if (codec.codec_type != AVMEDIA_TYPE_AUDIO || codec.sample_rate <= 0) return 0;
  return av_rescale_q(codec.initial_padding, AVRational{1, codec.sample_rate}, stream_->time_base);
}

Status TrackSegmenter::mux(AVPacket& packet, bool starts_segment) {
  if (measure_.segments.empty() && !segment_open_) measure_.content_start = packet.pts + priming();
  if (starts_segment) TC_RETURN_IF_ERROR(start_segment(packet));
  segment_end_ = std::max(segment_end_, packet.pts + std::max<int64_t>(packet.duration, 0));
  bool keyframe = measure_.type == AVMEDIA_TYPE_VIDEO && (packet.flags & AV_PKT_FLAG_KEY);
  if (keyframe) TC_RETURN_IF_ERROR(begin_keyframe(packet, starts_segment));
  packet.pts += measure_.media_shift;
  packet.dts += measure_.media_shift;
  if (setup_.format == SegmentFormat::kFmp4 && packet.dts < 0)
    return Status(Code::kInput, setup_.name + ": a timestamp " +
                                    std::to_string(measure_.seconds(-packet.dts)) +
                                    " s before the earliest a package can hold");
  if (int err = av_write_frame(format_.get(), &packet); err < 0)
    return av_status(err, Code::kOutput, "writing a segment of " + setup_.name);
  return keyframe ? end_keyframe() : Status::ok();
}

// fMP4: a keyframe within a segment (a GOP shorter than the segment) starts a fragment of its
// own, so that its moof and its sample are one range. The bytes before it are flushed to the
// file so that where its writing begins is known.
Status TrackSegmenter::begin_keyframe(const AVPacket& packet, bool starts_segment) {
  if (setup_.format == SegmentFormat::kFmp4 && !starts_segment)
    if (int err = av_write_frame(format_.get(), nullptr); err < 0)
      return av_status(err, Code::kOutput, "writing a segment of " + setup_.name);
  avio_flush(io_);
  if (write_error_)
    return av_status(AVERROR(write_error_), Code::kOutput, "writing " + setup_.name);
  keyframe_writes_.push_back({packet.pts, file_bytes_, file_bytes_});
  return Status::ok();
}

// TS: the muxer writes a video packet's PES at once; it ends where the file now ends. (fMP4's
// sample is written with its fragment, located by its moof in measure_keyframes.)
Status TrackSegmenter::end_keyframe() {
  if (setup_.format != SegmentFormat::kTs) return Status::ok();
  avio_flush(io_);
  if (write_error_)
    return av_status(AVERROR(write_error_), Code::kOutput, "writing " + setup_.name);
  keyframe_writes_.back().end = file_bytes_;
  return Status::ok();
}

void TrackSegmenter::measure_keyframes() {
  std::string_view written = written_;
  std::vector<KeyframeMeasure>& keyframes = measure_.segments.back().keyframes;
  for (const KeyframeWrite& write : keyframe_writes_) {
    if (write.begin > int64_t(written.size())) continue;
    ByteRange range{write.begin, 0};
    if (setup_.format == SegmentFormat::kFmp4) {
      range.length = fmp4_keyframe_length(written.substr(size_t(write.begin)));
    } else {
      ByteRange pes =
          ts_keyframe_range(written.substr(size_t(write.begin), size_t(write.end - write.begin)));
      range = {write.begin + pes.offset, pes.length};
    }
    if (range.length > 0) keyframes.push_back({write.pts, range});
  }
  written_.clear();
  keyframe_writes_.clear();
}

AVRational TrackSegmenter::highest_frame_rate() const {
  if (measure_.type != AVMEDIA_TYPE_VIDEO || shortest_interval_ <= 0) return measure_.frame_rate;
  return rate_of_interval(shortest_interval_, stream_->time_base);
}

Status TrackSegmenter::finish() {
  TC_RETURN_IF_ERROR(flush_pending(true));
  if (!segment_open_)
    return Status(Code::kInput, setup_.name + ": nothing was encoded for this rendition");
  measure_.frame_rate = highest_frame_rate();
  return end_segment(true);
}

}  // namespace tc::package
