// make_plan(JobSpec, MediaInfo, HwInventory) -> Plan: a pure function. The Plan names every
// libav piece the executor builds (decoder, filter graph text, encoders and their options,
// pixel formats, hw pool sizes) and the device of every stage. Zero-copy is a property of the
// Plan: a pure VA-API plan has no hwupload/hwdownload in its graph.
#pragma once

#include <string>
#include <utility>
#include <vector>

extern "C" {
#include <libavcodec/codec_id.h>
#include <libavutil/hwcontext.h>
#include <libavutil/pixfmt.h>
#include <libavutil/samplefmt.h>
}

#include "pipeline/core/status.h"
#include "pipeline/hw/devices.h"
#include "pipeline/probe/media_info.h"
#include "pipeline/spec/job_spec.h"

namespace tc {

using Options = std::vector<std::pair<std::string, std::string>>;

// Where a stage runs: "cpu", or a backend's device ("vaapi /dev/dri/renderD128 (i915)").
struct StageDevice {
  BackendKind backend = BackendKind::kSoftware;  // kSoftware = the CPU
  std::string path;
  std::string driver;
  std::string to_string() const;
};

// One stage of a plan as the dry run, the JSON report and the daemon show it: rendered from the
// plan by render_stages (plan/stages.h), never stored in it.
struct Stage {
  std::string name;  // "decode", "filter", "encode out0", "mux out0"
  // What does it, with notes: "h264 (vaapi hwaccel)", "scale_vaapi x3", "h264_vaapi (low_power)"
  // (the report's and the API's "what").
  std::string component;
  StageDevice device;
};

struct DecodePlan {
  bool needed = false;  // false when every output copies the video
  bool hw = false;      // frames stay in device memory (get_format picks hw_format)
  bool upload = false;  // software-decoded frames go up to the device before the graph
  // The libavcodec decoder by name ("av1", not libdav1d, for device frames); empty = the
  // default decoder of the codec (avcodec_find_decoder).
  std::string decoder;
  // Where `decoder` decodes only through the device (FFmpeg's native av1): the decoder the job
  // reopens with, in software, when the hwaccel refuses the stream before its first frame
  // ("libdav1d"); empty = `decoder` falls back to software itself.
  std::string software_decoder;
  // 0 = libavcodec's auto; hw decoders keep 1 (the pool grows with threads); software ones get
  // theirs from the cores (cores.h)
  int threads = 0;
  int extra_hw_frames = 0;
  StageDevice device;  // where the decoder runs
  std::string note;    // why it runs there: "vaapi hwaccel", "software: ... cannot decode ..."
};

// What an output's video is, sample by sample: the invariant that an 8-bit output is never
// tagged PQ, HLG or BT.2020 is checked on this (check_format in video_format.cc).
struct VideoFormatPlan {
  int bit_depth = 8;
  ChromaFormat chroma = ChromaFormat::k420;
  std::string profile;  // as ffprobe names it: "High", "Main 10", "Profile 2"; "" = not known
  ColorTags color;      // written to the encoder and the stream
  // HDR10 static metadata (mastering display, content light) carried from the source's frames
  // or stream to the encoder and the output stream.
  bool hdr_metadata = false;
  // Converted to SDR BT.709: tone-mapped (an HDR source) or its gamut converted (BT.2020 SDR).
  bool to_sdr = false;
  bool to_sdr_on_device = false;  // by the backend's tone-map filter, else in software
  std::string to_sdr_where;       // "tonemap_vaapi on the device", "zscale+tonemap on the cpu"
};

// Deinterlacing before the split, once for every output.
struct DeinterlacePlan {
  bool on = false;
  std::string filter;       // "bwdif=mode=send_frame:parity=auto:deint=all"
  std::string filter_name;  // the filter `filter` runs: "bwdif", "deinterlace_vaapi"
  StageDevice device;       // where it runs
  std::string why;          // "source field order tt (--deinterlace auto)"
};

// Turning a rotated source upright (plan/orientation.h): once, after any deinterlacer (fields
// are rows), before the split; on the device where the backend has the filter.
struct OrientationPlan {
  int quarter_turns = 0;     // clockwise: 0 = upright already, 1 = 90 degrees, 2, 3
  std::string filter;        // "transpose=dir=clock", "transpose_vaapi=dir=clock"; "" = none
  std::string filter_names;  // the filters `filter` runs: "transpose", "hflip,vflip"
  bool on_device = false;
  StageDevice device;  // where it runs
  std::string why;     // "display matrix: 90 degrees clockwise; ..."
  bool on() const { return !filter.empty(); }
};

// 10-bit frames converted to 8 bits on the device before the VPP filters that write the format
// they read (a device deinterlacer or turn), where the device's VPP writes no 10-bit frames
// (Gen9): "scale_vaapi=w=iw:h=ih:format=nv12"; "" = none.
struct DeviceConvertPlan {
  std::string filter;
  std::string why;     // "deinterlace_vaapi and transpose_vaapi write the format they read, ..."
  StageDevice device;  // where it runs
  bool on() const { return !filter.empty(); }
};

struct VideoEncodePlan {
  std::string encoder;  // "libx264", "h264_vaapi"
  // What it encodes; with device.backend, its entry in the encoder tables (hw/backends.h).
  VideoCodec codec = VideoCodec::kCopy;
  std::string preset;                          // as given to it ("veryfast"); "" = it has none
  StageDevice device;                          // where it runs
  std::string note;                            // "low_power", "cuda cannot encode vp9", or ""
  bool hw_frames = false;                      // takes device frames from its buffersink
  bool download = false;                       // its frames come down from the device first
  AVPixelFormat pix_fmt = AV_PIX_FMT_YUV420P;  // software format of the frames it encodes
  Options options;                             // private options: preset, crf, rc_mode, ...
  int64_t bit_rate = 0;
  int64_t max_rate = 0;
  int64_t buffer_size = 0;
  int gop = 0;
  int max_b_frames = -1;  // -1 = encoder default
  VideoFormatPlan format;
  bool progressive = false;  // deinterlaced: the stream is tagged progressive
  // Not deinterlaced, an interlaced source's field order (tt, bb, ...) is written with the
  // stream; AV_FIELD_UNKNOWN otherwise. `codes_fields`: the encoder codes the frames as fields
  // (libx264's interlaced mode, +ildct+ilme), so the bitstream says so too.
  AVFieldOrder field_order = AV_FIELD_UNKNOWN;
  bool codes_fields = false;
  // --fps: frames are dropped or repeated to this rate (the fps filter); {0, 1} = the source's.
  AVRational frame_rate{0, 1};
  // Packages: the first frame at or past each multiple of this media time is sent as a
  // keyframe (pict_type I), so that every rendition's segments start together. 0 = none.
  int64_t keyframe_interval_us = 0;
  // GOP-parallel encoding (plan/gop_parallel.h): the stream is cut into chunks of whole GOPs,
  // each encoded by an encoder of its own, up to `parallel_encoders` at once. 1 = one encoder
  // for the whole stream (a chunk is then the whole stream).
  int parallel_encoders = 1;
  int chunk_frames = 0;     // a chunk ends at the first GOP start at or past this many frames
  int encoder_threads = 0;  // each encoder's (libavcodec thread_count); 0 = auto
  // A device encoder on its low-power (VDEnc) entrypoint, else the full one.
  bool low_power = false;
  // Why the stream is encoded whole though GOP-parallel encoding was asked for; empty where it
  // was not asked for, or is cut (plan/gop_parallel.h).
  std::string one_encoder_why;
  // x264 kept off its AVX-512 code (plan/x264_avx512.h): its mbtree misreads this width.
  bool without_avx512 = false;
  // The container's HDR10 values are in its parameters option (plan/hdr_plan.h): the run adds
  // none from the frames.
  bool hdr_params_declared = false;
};

// One audio track of an output.
struct AudioPlan {
  enum class Mode { kNone, kCopy, kEncode } mode = Mode::kNone;
  int input_stream = -1;               // the input's stream index
  AVCodecID codec = AV_CODEC_ID_NONE;  // encoded: AAC, or Opus for WebM
  std::string encoder;                 // "aac", "libopus"
  int64_t bit_rate = 0;
  // What the encoder is fed (plan/audio_format.h): a layout its codec signals natively ("5.1",
  // "stereo"), the sample rate and the encoder's sample format.
  std::string channel_layout;
  int channels = 0;
  int sample_rate = 0;
  AVSampleFormat sample_format = AV_SAMPLE_FMT_NONE;
  // This output's own filters before the encoder: "loudnorm=...," then the aformat that gives the
  // frames the format above.
  std::string filter;
  // A package's stereo rendition of a surround track (plan/stereo_rendition.h), beside the
  // track's own plan for the same input stream.
  bool stereo_rendition = false;
};

// One subtitle track of an output: copied, or decoded and encoded in the container's format.
struct SubtitlePlan {
  int input_stream = -1;
  std::string encoder;  // empty = copied; "mov_text", "srt"
};

// What became of one input stream in one output: kept (and how) or dropped (and why).
struct StreamOutcome {
  size_t output = 0;
  int input_stream = -1;
  std::string kind;   // "video", "audio", "subtitle", "data", "attachment"
  std::string codec;  // the input's: "aac", "subrip"
  std::string language;
  std::string title;
  bool kept = false;
  std::string action;  // kept: "copy", "encode aac", "convert to mov_text"
  std::string reason;  // why encoded, converted or dropped; empty for a plain copy
  // "kept: encode aac (mp4 cannot hold pcm_s16le)", "dropped: --subtitles none"
  std::string text() const;
  bool operator==(const StreamOutcome&) const = default;
};

struct OutputPlan {
  std::string path;
  std::string format;   // muxer: "mp4", "matroska", "mpegts"
  Options mux_options;  // movflags=+faststart for mp4
  bool video_copy = false;
  VideoEncodePlan video;
  int width = 0;  // the encoded size (from the source when copying)
  int height = 0;
  // The video stream's codec tag (MKTAG); 0 = the muxer's own. HEVC in MP4 is hvc1 (parameter
  // sets in the sample entry), which Apple's players require; FFmpeg's default is hev1.
  uint32_t video_tag = 0;
  // The source's display matrix is written with the stream: a copied stream's pixels keep their
  // rotation; encoded ones are turned upright (Plan::orientation) and carry none.
  bool display_matrix = false;
  std::vector<AudioPlan> audio;  // in the input's stream order
  std::vector<SubtitlePlan> subtitles;
};

// The graph's sink `label` feeds output `output`.
struct GraphSink {
  std::string label;  // "out2", "aout2"
  size_t output = 0;
  bool thumbnails = false;  // feeds the thumbnail sheets, not an output
  // Its frames leave the graph on the device and its output's encoder downloads them, on the
  // output's thread (plan/graphs.cc): this is that download as the ffmpeg CLI's filters
  // ("hwdownload,format=nv12"), for the command --dry-run prints. "" = none.
  std::string download_at_output;
  size_t audio = 0;  // an audio graph's sink: the index of the AudioPlan it feeds in its output
};

// A libavfilter graph as the planner wrote it, with what it recorded while writing it.
struct FilterGraphPlan {
  std::string text;              // from one input ("[in]" / "[ain]") to every sink below
  std::vector<GraphSink> sinks;  // in output order
  int uploads = 0;               // filters that copy frames from memory to the device
  int downloads = 0;             // copies of frames from the device to memory (in the graph, or
                                 // by the output: GraphSink::download_at_output)
  int scalers = 0;
  int threads = 0;  // the slice threads its filters share: 0 = libavfilter's auto (cores + 1)
  bool empty() const { return text.empty(); }
  // Output `output`'s sink, and its label; null and empty when it has none.
  const GraphSink* sink_of(size_t output) const;
  std::string sink_label(size_t output) const;
};

// A streaming package's segmenting: made by plan_package (plan/package_plan.h).
struct PackagePlan {
  PackageKind kind = PackageKind::kNone;
  std::string dir;
  double segment_s = 0;
  std::string segment_name;  // "seg_{n}"
  double frame_rate = 0;     // the source's, that the GOP is counted in
  int gop = 0;               // frames per segment at that rate
  SegmentFormat segment_format = SegmentFormat::kFmp4;
  bool on() const { return kind != PackageKind::kNone; }
};

// Thumbnails: a branch of the one video graph that keeps the first frame of every interval (by
// its pts) and scales it to the tile size where the other branches scale (on the device for a
// GPU backend: only the kept tiles are downloaded); the sheets are laid out in memory and
// encoded with mjpeg. Made by plan_thumbnails (thumbnail_plan.cc).
struct ThumbnailPlan {
  bool on = false;
  double interval_s = 0;
  int width = 0;  // a tile's size: even sides
  int height = 0;
  int columns = 0;  // tiles per sheet
  int rows = 0;
  // Where the sheets and thumbnails.vtt go: the package's directory (then inside its partial
  // directory, published with it), else the first output's directory.
  std::string dir;
  bool in_package = false;
  std::string encoder = "mjpeg";
  AVPixelFormat pix_fmt = AV_PIX_FMT_YUVJ420P;  // full-range 4:2:0, what a baseline JPEG holds
  bool download = false;                        // the kept tiles come down from the device
  StageDevice scale_device;                     // where tiles are chosen and scaled
};

// Work queued between the demux thread and each output's thread (exec/branch_lane.h): frames to
// encode, mostly. Where a device's pools are fixed, a device encoder's branch pool counts them.
// Three here and two below ran as fast as eight and four on 2 and on 16 cores, and hold fewer
// frames: 10-27 MiB less at 1080p (bench/README.md, "Queue depths").
constexpr int kBranchQueueFrames = 3;
// Decoded frames queued between the demux thread and the video graph's thread: a device
// decoder's pool (always fixed) counts them.
constexpr int kDecodeQueueFrames = 2;

struct Plan {
  BackendKind backend = BackendKind::kSoftware;
  std::string backend_reason;  // why this backend ("auto: no Intel render node; software")
  StageDevice device;          // the hw device the job opens; backend kSoftware = none
  AVHWDeviceType device_type = AV_HWDEVICE_TYPE_NONE;
  AVPixelFormat hw_format = AV_PIX_FMT_NONE;
  DecodePlan decode;
  DeinterlacePlan deinterlace;
  OrientationPlan orientation;
  DeviceConvertPlan device_convert;  // before the device deinterlacer or turn
  FilterGraphPlan video_graph;       // empty when no output encodes video
  // The same graph for software-decoded frames (uploaded first), for when the decoder's hwaccel
  // refuses the stream at run time after all; empty unless decode.hw.
  FilterGraphPlan fallback_video_graph;
  // What the executor builds instead once the decoded frames change size or format mid-stream
  // (refit_plan.h): every output keeps its size, the frames scaled to fit it keeping their
  // display aspect and padded black. Same sinks as video_graph; empty when it is.
  FilterGraphPlan refit_video_graph;
  FilterGraphPlan
      refit_fallback_video_graph;  // for software-decoded frames; empty unless decode.hw
  // One graph per input audio track that some output encodes: "[ain]" to that track's sinks.
  struct AudioGraph {
    int input_stream = -1;
    FilterGraphPlan graph;
  };
  std::vector<AudioGraph> audio_graphs;
  std::vector<StreamOutcome> streams;  // every input stream, per output
  std::vector<OutputPlan> outputs;
  PackagePlan package;             // kind kNone: the outputs are files
  ThumbnailPlan thumbnails;        // on = false: none
  QualityMetrics quality_metrics;  // measured per encoded output; none by default
  // The source as the stages name it: its demuxer ("mov,mp4,m4a,3gp,3g2,mj2") and video codec.
  std::string source_format;
  std::string source_codec;
  // Places where frames cross between device and host memory (an upload or a download
  // filter); 0 for a pure hardware plan.
  int crossings() const { return video_graph.uploads + video_graph.downloads; }
};

Result<Plan> make_plan(const JobSpec& spec, const MediaInfo& media, const HwInventory& devices);

// Human-readable plan, one stage a line.
std::string describe(const Plan& plan);
// What became of every input stream, output by output (`paths` names them), one a line.
std::string describe_streams(const std::vector<StreamOutcome>& streams,
                             const std::vector<std::string>& paths);
// The package's segment and GOP plan, a line each; empty without a package.
std::string describe_package(const Plan& plan);
// The thumbnails' plan, a line; empty without thumbnails.
std::string describe_thumbnails(const Plan& plan);
// The ffmpeg command line that runs the same pipeline (for --dry-run and the benchmarks).
std::string ffmpeg_command(const Plan& plan, const JobSpec& spec);

}  // namespace tc
