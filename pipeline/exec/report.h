// What a job reports: live Progress while it runs, a JobReport when it has finished. Both have
// one JSON form (the shape `transcode run --json` prints, a daemon worker sends on its pipe and
// the daemon's store keeps), written and read by the functions here and nowhere else.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "pipeline/core/status.h"
#include "pipeline/metrics/engine_usage.h"
#include "pipeline/package/package_report.h"
#include "pipeline/plan/plan.h"

namespace tc {

struct Progress {
  int64_t frames_decoded = 0;
  int64_t frames_encoded = 0;  // video frames, summed over outputs
  double media_time_s = 0;     // how far into the (trimmed) input the job is
  // The (trimmed) input's expected length from the probe; 0 when unknown. JSON and proto:
  // "input_duration_s", and the deprecated "media_duration_s" with the same value.
  double input_duration_s = 0;
  double elapsed_s = 0;
  double fps = 0;    // decoded frames per wall second
  double speed = 0;  // media time per wall time
  bool operator==(const Progress&) const = default;
};

// An output measured against its source (--quality): the averages over the frames compared,
// computed as ffmpeg's psnr and ssim filters print them at the end. A metric not asked for is
// absent.
struct QualityScore {
  int64_t frames = 0;                 // output frames compared
  std::optional<double> psnr_y_db;    // luma
  std::optional<double> psnr_avg_db;  // all planes, weighted by size ("average" in ffmpeg)
  std::optional<double> ssim;         // all planes ("All" in ffmpeg), 0..1
  bool operator==(const QualityScore&) const = default;
};

struct OutputReport {
  std::string path;
  std::string encoder;  // "libx264", "h264_vaapi", "copy"
  std::string device;   // where its encoder ran
  int width = 0;
  int height = 0;
  int64_t frames = 0;
  int64_t bytes = 0;
  double duration_s = 0;
  int64_t bitrate = 0;  // bits per second, bytes * 8 / duration
  // The video as encoded: in this many chunks of whole GOPs, each by an encoder of its own
  // (GOP-parallel encoding, plan/gop_parallel.h); 1 = by one encoder, 0 = copied.
  int64_t chunks = 0;
  std::optional<QualityScore> quality;  // with --quality only
  bool operator==(const OutputReport&) const = default;
};

// The thumbnails as written: sheets of tiles and the WebVTT index that points into them.
struct ThumbnailReport {
  std::string index;                // the index's path: "/srv/media/show/thumbnails.vtt"
  std::vector<std::string> sheets;  // beside it, in order: "sheet_1.jpg", ...
  int64_t tiles = 0;                // one per cue of the index
  double interval_s = 0;
  int width = 0;  // a tile's
  int height = 0;
  int columns = 0;  // tiles a full sheet holds
  int rows = 0;
  bool operator==(const ThumbnailReport&) const = default;
};

// A mid-stream change of the decoded video that rebuilt the video graph (source_change.h).
struct SourceChangeReport {
  double time_s = 0;  // the first new frame's time in the outputs
  std::string from;   // "640x360 yuv420p", "1920x1080 vaapi (nv12)"
  std::string to;
  bool operator==(const SourceChangeReport&) const = default;
};

// Where one of the pipeline's threads spent the job's wall time: working (`busy_s`), or held
// back by the stage after it, whose queue was full (`blocked_s`); the rest it waited for input.
// The stage that bounds a job's speed is busy nearly all the time, and those before it blocked.
struct ThreadReport {
  std::string name;  // "decode", "video graph", "out0" (as the stages name outputs)
  double busy_s = 0;
  double blocked_s = 0;
  bool operator==(const ThreadReport&) const = default;
};

struct JobReport {
  std::string input;
  std::string backend;
  std::string backend_reason;
  std::vector<Stage> stages;
  std::vector<OutputReport> outputs;
  // What became of every input stream in every output, and why (the plan's).
  std::vector<StreamOutcome> streams;
  int64_t frames_decoded = 0;
  // Media time actually transcoded (the longest output). JSON and proto: "media_processed_s",
  // and the deprecated "media_duration_s" with the same value.
  double media_duration_s = 0;
  double setup_s = 0;        // probe + device discovery + plan, before wall_s starts
  double wall_s = 0;         // the pipeline itself: open to last output renamed
  double cpu_s = 0;          // user + system CPU time of this process
  double fps = 0;            // frames decoded per wall second
  double speed = 0;          // media seconds per wall second
  double first_frame_s = 0;  // wall time to the first encoded video packet
  // The job's average engine use: the daemon's sampler adds it; `transcode run` has none.
  std::optional<metrics::EngineUsage> engines;
  std::optional<PackageReport> package;  // a package job's renditions
  std::optional<ThumbnailReport> thumbnails;
  // Each change of the source's size or format, in order; the outputs kept their sizes.
  std::vector<SourceChangeReport> source_changes;
  // The pipeline's threads (none when it ran serially, `--serial`).
  std::vector<ThreadReport> threads;
};

// "PSNR 41.23 dB (y 40.10), SSIM 0.9812, 240 frames": the metrics measured.
std::string quality_text(const QualityScore& quality);

// nlohmann's ADL writers: `nlohmann::json j = report;`. A Stage's "device" is also written as
// the text people read ("vaapi /dev/dri/renderD128 (i915)"); its parts are read back from
// "device_backend", "device_path" and "device_driver".
void to_json(nlohmann::json& j, const Progress& progress);
void to_json(nlohmann::json& j, const QualityScore& quality);
void to_json(nlohmann::json& j, const OutputReport& output);
void to_json(nlohmann::json& j, const Stage& stage);
void to_json(nlohmann::json& j, const StreamOutcome& stream);
void to_json(nlohmann::json& j, const JobReport& report);
void to_json(nlohmann::json& j, const RenditionReport& rendition);
void to_json(nlohmann::json& j, const PackageReport& package);
void to_json(nlohmann::json& j, const ThumbnailReport& thumbnails);
void to_json(nlohmann::json& j, const SourceChangeReport& change);
void to_json(nlohmann::json& j, const ThreadReport& thread);

// The readers: keys a writer did not know stay at their defaults; a key of the wrong type is a
// kInvalidArgument naming it ("outputs[1].frames: ..."). Never throws.
Status from_json(const nlohmann::json& j, Progress& progress);
Status from_json(const nlohmann::json& j, QualityScore& quality);
Status from_json(const nlohmann::json& j, OutputReport& output);
Status from_json(const nlohmann::json& j, Stage& stage);
Status from_json(const nlohmann::json& j, StreamOutcome& stream);
Status from_json(const nlohmann::json& j, JobReport& report);
Status from_json(const nlohmann::json& j, RenditionReport& rendition);
Status from_json(const nlohmann::json& j, PackageReport& package);
Status from_json(const nlohmann::json& j, ThumbnailReport& thumbnails);
Status from_json(const nlohmann::json& j, SourceChangeReport& change);
Status from_json(const nlohmann::json& j, ThreadReport& thread);

// `transcode run --json`: the report as indented text.
std::string report_to_json(const JobReport& report, int indent = 2);

}  // namespace tc
