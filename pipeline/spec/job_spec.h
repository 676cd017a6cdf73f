// What a user asks for: one input, 1..N outputs. The same struct is filled by `transcode run`'s
// options, by `--job FILE` (JSON), and by the daemon from a gRPC Job's config (whose JSON has the
// same field names), so validation and defaults live here once.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "pipeline/core/status.h"
#include "pipeline/spec/loudness.h"
#include "pipeline/spec/quality_metrics.h"
#include "pipeline/spec/stream_selection.h"

namespace tc {

enum class BackendKind { kAuto, kSoftware, kVaapi, kVulkan, kCuda, kQsv };
enum class VideoCodec { kH264, kHevc, kAv1, kVp9, kCopy };
// kQuality: constant quality (crf for software encoders, CQP for VA-API, constqp for NVENC).
enum class RateControl { kDefault, kQuality, kCbr, kVbr };
// kAuto: copy when the container can hold the source's audio codec, else AAC.
enum class AudioMode { kAuto, kCopy, kAac, kNone };
// HDR (PQ or HLG) sources. kAuto: keep where the output can be 10-bit (HEVC Main10, AV1, VP9
// profile 2 on an encoder that takes 10-bit frames), else tone-map to SDR BT.709 8-bit.
enum class HdrMode { kAuto, kKeep, kTonemap };
// kAuto: deinterlace when the probe says the source's fields are interlaced.
enum class Deinterlace { kAuto, kOn, kOff };

// An output frame rate, num/den frames a second (spec/frame_rate.h); num 0 = the source's.
struct FrameRate {
  int num = 0;
  int den = 1;
  bool set() const { return num > 0; }
  bool operator==(const FrameRate&) const = default;
};

struct OutputSpec {
  std::string path;
  std::string container;  // "mp4", "mkv", "webm" or "mpegts"; empty = from the path's extension
  VideoCodec codec = VideoCodec::kH264;  // the readers of options and JSON: default_codec()
  int width = 0;  // 0 = from the source (keeping its aspect when the other side is set)
  int height = 0;
  FrameRate fps;  // --fps: frames dropped or repeated to this rate; unset = the source's
  RateControl rate_control = RateControl::kDefault;
  int quality = -1;     // crf / qp; -1 = the encoder's default
  int64_t bitrate = 0;  // bits per second, for kCbr / kVbr
  int gop = 0;          // frames between keyframes; 0 = two seconds of frames
  int b_frames = -1;    // -1 = the encoder's default
  std::string preset;   // encoder speed preset; empty = the backend's default
  AudioMode audio = AudioMode::kAuto;
  // Bits per second of each encoded track; 0 = from its channels (audio_format.h: 64 kb/s a
  // channel, 128 kb/s stereo, 384 kb/s 5.1).
  int64_t audio_bitrate = 0;
  int audio_channels = 0;    // downmix encoded tracks to this many channels; 0 = the source's
  int audio_rate = 0;        // encoded tracks' sample rate in Hz; 0 = the source's
  AudioTracks audio_tracks;  // every audio track by default
  SubtitleMode subtitles = SubtitleMode::kCopy;
  HdrMode hdr = HdrMode::kAuto;
  Loudnorm loudnorm = Loudnorm::kOff;  // on: every kept audio track is encoded through loudnorm
  bool operator==(const OutputSpec&) const = default;
};

// A job-level streaming package (HLS, DASH, or both over the same CMAF segments): every output
// becomes a rendition, its `path` the rendition's name (a subdirectory of `dir`).
enum class PackageKind { kNone, kHls, kDash, kCmaf };
// The media segments' container: CMAF fMP4, or MPEG-TS for old HLS clients (hls only).
enum class SegmentFormat { kFmp4, kTs };

struct PackageSpec {
  PackageKind kind = PackageKind::kNone;
  std::string dir;       // the package directory; published whole, atomically
  double segment_s = 4;  // target segment duration; keyframes are forced at its multiples
  std::string segment_name = "seg_{n}";  // a media segment's name ({n}: 1, 2, ...) before .m4s
  SegmentFormat segment_format = SegmentFormat::kFmp4;
  // A stereo AAC rendition beside each surround audio track, in the same audio group: players
  // on stereo devices (browsers' MSE) need one, and Apple's HLS authoring rules ask for it.
  bool stereo_audio = true;
  bool on() const { return kind != PackageKind::kNone; }
  bool operator==(const PackageSpec&) const = default;
};

// Thumbnails: one frame per interval, scaled to a tile, laid out on JPEG sprite sheets with a
// WebVTT index (thumbnail_spec.h). Written into the package, or beside the first output.
struct ThumbnailSpec {
  bool on = false;
  double interval_s = 10;  // a tile per this much media time
  int width = 160;         // the tile's; 0 = from the other side by the source's aspect ratio
  int height = 0;
  int columns = 5;  // tiles per sheet, across and down
  int rows = 5;
  bool operator==(const ThumbnailSpec&) const = default;
};

struct JobSpec {
  std::string input;
  double start_s = 0;     // trim: start of the part to transcode
  double duration_s = 0;  // trim: length of it; 0 = to the end
  BackendKind backend = BackendKind::kAuto;
  std::string device;  // hw device (render node, CUDA index); empty = discover
  std::vector<OutputSpec> outputs;
  Deinterlace deinterlace = Deinterlace::kAuto;
  QualityMetrics quality_metrics;  // none by default: measuring decodes every output again
  PackageSpec package;             // kind kNone: the outputs are files
  ThumbnailSpec thumbnails;        // off by default
  // libx264 encoders per output at most, each a chunk of whole GOPs (plan/gop_parallel.h):
  // 0 = whoever runs the job decides (auto from the cores, or a daemon node's setting), 1 = one
  // encoder (the least memory), N = up to N.
  int gop_parallel = 0;
  // The job's own log keeps libav's informational lines too, not only warnings and errors: a
  // daemon's worker logs at AV_LOG_INFO for it (`transcode submit --verbose`).
  bool verbose_log = false;
  bool operator==(const JobSpec&) const = default;
};

// The longest start or duration a spec may name: past it a time is a typo or an attack, and
// seconds * 1e6 must still fit the int64 microseconds the pipeline counts in.
inline constexpr double kMaxSpecSeconds = 1e7;
// A spec time in microseconds. validate() keeps times within kMaxSpecSeconds; the clamp keeps
// the conversion defined (no float-to-int overflow) for any double.
int64_t seconds_to_us(double seconds);
// The most encoders a job may ask for one output (JobSpec::gop_parallel).
inline constexpr int kMaxGopParallel = 16;
// The longest side of an output frame: the limit of common encoders (x264, NVENC, VA-API).
inline constexpr int kMaxSide = 16384;

// Limits a caller (the daemon's configuration) may tighten.
struct SpecLimits {
  int max_outputs = 8;
  int max_side = kMaxSide;
};

// Settles what a spec leaves to its defaults, the same way for every entry point (CLI options,
// --job JSON, the daemon's JobConfig): a bitrate with the default rate control means VBR, a
// quality with it means constant quality. Idempotent.
void normalize(JobSpec& spec);
// Every string of a spec with its bound and field name ("outputs[1].path"), for the checks of
// representable text (core/text_field.h) that validate() makes first and the daemon's sizes.
struct TextField {
  std::string_view value;
  size_t max_bytes;
  std::string field;
};
std::vector<TextField> text_fields(const JobSpec& spec);
// Checks what can be checked without opening the input: its strings (representable text, within
// their bounds), counts, sizes, rates, names.
Status validate(const JobSpec& spec, const SpecLimits& limits = {});
// The container an output gets: its explicit one, else the one its extension names: "mp4",
// "mkv", "webm" (Matroska with WebM's codecs: VP8/VP9/AV1, Opus/Vorbis) or "mpegts".
Result<std::string> container_of(const OutputSpec& output);
// The video codec of an output that names none: VP9 for WebM, else H.264.
VideoCodec default_codec(const OutputSpec& output);

Result<JobSpec> job_spec_from_json(std::string_view json);
std::string job_spec_to_json(const JobSpec& spec);
// The same, as the JSON value: for a spec inside a larger JSON message.
Result<JobSpec> job_spec_from_json_value(const nlohmann::json& json);
nlohmann::json job_spec_json_value(const JobSpec& spec);

std::string_view name_of(BackendKind backend);
std::string_view name_of(VideoCodec codec);
std::string_view name_of(RateControl rate_control);
std::string_view name_of(AudioMode audio);
std::string_view name_of(HdrMode hdr);
std::string_view name_of(Deinterlace deinterlace);
std::string_view name_of(PackageKind kind);
std::string_view name_of(SegmentFormat format);
Result<BackendKind> parse_backend(std::string_view name);
Result<VideoCodec> parse_codec(std::string_view name);
Result<RateControl> parse_rate_control(std::string_view name);
Result<AudioMode> parse_audio(std::string_view name);
Result<HdrMode> parse_hdr(std::string_view name);
Result<Deinterlace> parse_deinterlace(std::string_view name);
Result<PackageKind> parse_package_kind(std::string_view name);
Result<SegmentFormat> parse_segment_format(std::string_view name);
// The names a parse_* above (and container_of) takes, in its own table's order: what shell
// completion offers for the option.
enum class Choice {
  kBackend,
  kCodec,
  kRateControl,
  kAudio,
  kHdr,
  kDeinterlace,
  kPackage,
  kSegmentFormat,
  kContainer
};
std::vector<std::string> choice_names(Choice choice);
// "4M", "800k", "2500000" -> bits per second.
Result<int64_t> parse_bitrate(std::string_view text);
// "1280x720", "1280x0", "0x720" -> width, height.
Status parse_size(std::string_view text, int& width, int& height);

}  // namespace tc
