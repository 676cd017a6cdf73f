// make_plan(JobSpec, MediaInfo, HwInventory) -> Plan: a pure function. The Plan names every
// libav piece the executor builds (decoder, filter graph text, encoders and their options,
// pixel formats, hw pool sizes) and the device of every stage. Zero-copy is a property of the
// Plan: a pure VA-API plan has no hwupload/hwdownload in its graph.
#pragma once

#include <string>
#include <utility>
#include <vector>

extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/pixfmt.h>
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

struct Stage {
  std::string name;  // "decode", "filter", "encode out0", "mux out0"
  std::string what;  // "h264 (VA-API hwaccel)", "scale_vaapi x3", "h264_vaapi low_power"
  StageDevice device;
};

struct DecodePlan {
  bool needed = false;  // false when every output copies the video
  bool hw = false;      // frames stay in device memory (get_format picks hw_format)
  int threads = 0;      // 0 = auto; hw decoders keep 1-2 (the pool grows with threads)
  int extra_hw_frames = 0;
};

struct VideoEncodePlan {
  std::string encoder;                         // "libx264", "h264_vaapi"
  bool hw_frames = false;                      // takes device frames from its buffersink
  AVPixelFormat pix_fmt = AV_PIX_FMT_YUV420P;  // software format of the frames it encodes
  Options options;                             // private options: preset, crf, rc_mode, ...
  int64_t bit_rate = 0;
  int64_t max_rate = 0;
  int64_t buffer_size = 0;
  int gop = 0;
  int max_b_frames = -1;  // -1 = encoder default
};

struct AudioPlan {
  enum class Mode { kNone, kCopy, kEncode } mode = Mode::kNone;
  std::string encoder;  // "aac"
  int64_t bit_rate = 0;
};

struct OutputPlan {
  std::string path;
  std::string format;   // muxer: "mp4", "matroska", "mpegts"
  Options mux_options;  // movflags=+faststart for mp4
  bool video_copy = false;
  VideoEncodePlan video;
  int width = 0;  // the encoded size (from the source when copying)
  int height = 0;
  AudioPlan audio;
};

struct Plan {
  BackendKind backend = BackendKind::kSoftware;
  std::string backend_reason;  // why this backend ("auto: no Intel render node; software")
  StageDevice device;          // the hw device the job opens; backend kSoftware = none
  AVHWDeviceType device_type = AV_HWDEVICE_TYPE_NONE;
  AVPixelFormat hw_format = AV_PIX_FMT_NONE;
  DecodePlan decode;
  // libavfilter graph text: one input "[in]", one output "[outK]" per output K that encodes
  // video. Empty when no output encodes video.
  std::string video_graph;
  // Same for audio: "[ain]" -> "[aoutK]" per output K that encodes audio.
  std::string audio_graph;
  std::vector<OutputPlan> outputs;
  std::vector<Stage> stages;
  // Frames copied between device and host memory, as the graph says: hwupload + hwdownload
  // filters. 0 for a pure hardware plan.
  int transfers() const;
};

Result<Plan> make_plan(const JobSpec& spec, const MediaInfo& media, const HwInventory& devices);

// The graph labels of output K's sinks, shared by the planner and the executor: "out2", "aout2".
std::string video_sink_label(size_t output);
std::string audio_sink_label(size_t output);

// Human-readable plan, one stage a line.
std::string describe(const Plan& plan);
// The ffmpeg command line that runs the same pipeline (for --dry-run and the benchmarks).
std::string ffmpeg_command(const Plan& plan, const JobSpec& spec);

}  // namespace tc
