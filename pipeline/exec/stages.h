// The executor's stages, a struct each (as lpms does): input (demux + decoders), filter graph,
// output (encoders + muxer). The executor (executor.cc) moves packets and frames between them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/core/av.h"
#include "pipeline/core/status.h"
#include "pipeline/exec/chunked_encoder.h"
#include "pipeline/io/access.h"
#include "pipeline/io/media_input.h"
#include "pipeline/io/temp_file.h"
#include "pipeline/plan/plan.h"

namespace tc {
namespace package {
class PackageWriter;
class TrackSegmenter;
class TextRendition;
}  // namespace package

// An audio or subtitle stream of the input that some output keeps.
struct InputTrack {
  AVStream* stream = nullptr;
  av::CodecContextPtr decoder;  // null when every output copies it
};

struct InputStage {
  io::InputSource source;  // the confined file the format reads; outlives it
  av::InputFormatPtr format;
  AVStream* video = nullptr;
  av::CodecContextPtr video_decoder;  // null when every output copies the video
  std::vector<InputTrack> audio;      // in stream order
  std::vector<InputTrack> subtitles;
  // The kept track of input stream `index`; null when no output keeps it.
  const InputTrack* track(int index) const;
};

// Opens the input (confined to `access`), and the decoders the plan needs. `interrupt` lets a
// cancel stop blocking I/O.
Result<InputStage> open_input(const std::string& path, const io::Access& access, const Plan& plan,
                              const AVBufferRef* device, const AVIOInterruptCB& interrupt);
// The plan's decode.software_decoder on the input's video (libdav1d where FFmpeg's native av1
// has no software path), with libavcodec's automatic threads: where the device decoder refused
// the stream. kUnsupported when the plan names none or this FFmpeg lacks it.
Result<av::CodecContextPtr> open_software_video_decoder(const AVCodecParameters& parameters,
                                                        AVRational time_base, const Plan& plan);
// The first software (not hwaccel) format of a get_format list; AV_PIX_FMT_NONE if none.
AVPixelFormat software_format(const AVPixelFormat* offered);
// Seeks to `start_s` (to the keyframe at or before it).
Status seek_input(InputStage& input, double start_s);

// A libavfilter graph with one source and labelled sinks, built from a Plan's graph text.
class FilterGraph {
 public:
  struct Source {
    const char* filter;                      // "buffer" or "abuffer"
    std::string args;                        // its options ("video_size=...:pix_fmt=...")
    const AVBufferRef* hw_frames = nullptr;  // the decoder's frames context, for device frames
  };
  // The plan's graph, fed at "[<source_label>]"; sink i is the plan's sinks[i].
  static Result<FilterGraph> create(const FilterGraphPlan& plan, const std::string& source_label,
                                    const Source& source, const AVBufferRef* device);
  // Takes the frame's reference; nullptr signals the end of the stream. A video stream ends
  // where its last frame does (its pts plus the interval before it), not at its start: the fps
  // filter (--fps) counts the frames it gives up to that end, as the ffmpeg CLI's does.
  Status push(AVFrame* frame);
  // 0 with a frame, AVERROR(EAGAIN) for none yet, AVERROR_EOF at the end, or an error.
  int pull(size_t sink, AVFrame* frame);
  AVFilterContext* sink(size_t index) const { return sinks_[index]; }
  size_t sink_count() const { return sinks_.size(); }

 private:
  av::FilterGraphPtr graph_;
  AVFilterContext* source_ = nullptr;
  std::vector<AVFilterContext*> sinks_;
  int64_t last_video_pts_ = AV_NOPTS_VALUE;
  int64_t video_step_ = 0;  // the last interval between video frames' pts
};

// AVFilterInOut list entries naming already-created filters for avfilter_graph_parse_ptr.
av::FilterInOutPtr link_list(const std::vector<std::pair<std::string, AVFilterContext*>>& ends);

// Source arguments for a decoder's frames.
FilterGraph::Source video_source(const AVFrame& frame, AVRational time_base, AVRational frame_rate);
FilterGraph::Source audio_source(const AVCodecContext& decoder);

// What a video sink gives its encoder, read where the graph runs: the encoder opens on its
// output's thread, which never touches the graph.
struct VideoSinkFormat {
  int width = 0;
  int height = 0;
  AVRational sample_aspect_ratio{0, 1};
  AVRational time_base{0, 1};
  AVPixelFormat format = AV_PIX_FMT_NONE;
  av::BufferRefPtr hw_frames;  // the sink's frames context, for a device encoder
  static VideoSinkFormat of(const AVFilterContext* sink);
};

struct OutputCounters {
  int64_t video_frames = 0;
  int64_t last_video_pts_us = 0;  // end of the last video packet, in microseconds
  int64_t bytes = 0;              // the complete file's size, once finished
  int64_t chunks = 0;             // the video's GOP chunks (exec/chunked_encoder.h); 1 = whole
};

// Where an output's video encoders run: on its own thread, or (not `threaded`) on the caller's.
// `name` names the threads of its GOP chunks' encoders.
struct EncoderThreads {
  bool threaded = true;
  std::string name;
};

class OutputStage {
 public:
  // Writes to a temp file in the output's directory, opened below `roots`. `input_path` names
  // the input in errors its data causes (a packet the muxer refuses).
  static Result<OutputStage> open(const OutputPlan& plan, const InputStage& input,
                                  const std::string& input_path, const io::Roots& roots,
                                  const AVIOInterruptCB& interrupt, int attempt);
  // A rendition `index` of a package: its tracks go to the package's segmenters, not to a file.
  static Result<OutputStage> open_rendition(const OutputPlan& plan, size_t index,
                                            const InputStage& input, const std::string& input_path,
                                            package::PackageWriter& package);
  OutputStage(OutputStage&&) = default;
  ~OutputStage();

  // The video encoder opens on the first filtered frame: only then is the sink's (hw) frames
  // context known.
  Status open_video_encoder(const VideoSinkFormat& sink, AVRational frame_rate,
                            const AVFrame& first, const EncoderThreads& threads);
  // The encoder of the output's audio track `audio` (its plan's audio[audio]), fed by `sink`.
  Status open_audio_encoder(size_t audio, AVFilterContext* sink);
  // Sees each encoded video packet (timestamps in the encoder's time base) before it is muxed:
  // --quality decodes them again.
  using PacketObserver = std::function<Status(const AVCodecContext& encoder, const AVPacket&)>;
  void observe_video_packets(PacketObserver observer) { video_observer_ = std::move(observer); }
  // Encodes a frame (nullptr flushes) and writes what comes out.
  Status encode_video(const AVFrame* frame);
  Status encode_audio(size_t audio, const AVFrame* frame);
  // Encodes a decoded subtitle of input stream `input_stream` in the output's format;
  // `offset_us` is the trim start, subtracted from its time.
  Status encode_subtitle(int input_stream, const AVSubtitle& subtitle, int64_t offset_us);
  // Writes a packet of the input's stream, for stream copy. Packets of streams this output
  // does not keep are ignored.
  Status copy_packet(const AVPacket& packet, const AVStream& from, int64_t offset_pts);
  // Flushes, writes the trailer. The file is complete but not yet renamed. `input` is named
  // when nothing could be written because nothing was decoded from it.
  Status finish(const std::string& input);
  Status commit() { return temp_ ? temp_->publish() : Status::ok(); }
  // Sets the frame's picture type: a keyframe where a package's segment starts, else the
  // encoder's choice.
  void mark_keyframe(AVFrame& frame);

  const OutputPlan& plan() const { return plan_; }
  const OutputCounters& counters() const { return counters_; }
  const std::string& written_path() const { return temp_ ? temp_->path() : plan_.path; }

 private:
  OutputStage(const OutputPlan& plan, std::optional<io::TempFile> temp)
      : plan_(plan), temp_(std::move(temp)) {}
  // An audio or subtitle stream of the output and the input stream it comes from.
  struct Track {
    int input_stream = -1;
    AVStream* stream = nullptr;
    av::CodecContextPtr encoder;  // null when copied (or until an audio encoder opens)
    bool copy = false;
    bool stereo_rendition = false;  // a package's stereo rendition of a surround track
  };
  Status add_tracks(const InputStage& input);
  Track* track_of(int input_stream);
  // Audio track `audio`: tracks_ starts with the audio, in the plan's order.
  Track* audio_track(size_t audio) {
    return audio < plan_.audio.size() && audio < tracks_.size() ? &tracks_[audio] : nullptr;
  }
  Status write(AVPacket* packet, AVStream* stream, AVRational from_time_base);
  Status drain(AVCodecContext* encoder, AVStream* stream);
  Status write_video_packet(AVPacket* packet);
  Status write_header_when_ready();
  Status open_segmenters();
  Status finish_segmenters();

  OutputPlan plan_;
  std::string input_path_;
  const AVStream* input_video_ = nullptr;  // the source's, for its HDR side data
  // Destroyed in reverse: the muxer, then its AVIO and file, then the temp name (removed
  // unless published).
  std::optional<io::TempFile> temp_;  // none for a package's rendition
  std::unique_ptr<io::NestedOpens> nested_ = std::make_unique<io::NestedOpens>();
  io::FdAvioPtr io_;
  av::OutputFormatPtr format_;
  AVStream* video_ = nullptr;
  av::CodecContextPtr video_encoder_;
  std::unique_ptr<ChunkedEncoder> video_chunks_;  // encodes with video_encoder_: goes first
  std::vector<Track> tracks_;                     // audio, then subtitles
  bool header_written_ = false;
  // Packets that came before the header could be written (the muxer may still change a
  // stream's time base then), with the time base they are in.
  struct Waiting {
    av::PacketPtr packet;
    AVStream* stream;
    AVRational time_base;
  };
  std::vector<Waiting> waiting_;
  OutputCounters counters_;
  PacketObserver video_observer_;
  // The last dts written per output stream (by index), in the stream's time base: the next
  // packet's timestamps are made to follow it (sanitize_timestamps in output.cc).
  std::vector<int64_t> last_dts_;
  // A package's rendition: its package, its output index, a segmenter per stream (by index).
  package::PackageWriter* package_ = nullptr;
  size_t rendition_ = 0;
  std::vector<package::TrackSegmenter*> segmenters_;
  std::vector<package::TextRendition*> text_renditions_;  // subtitles: WebVTT cues, by index
  int64_t next_keyframe_us_ = INT64_MIN;
};

}  // namespace tc
