#include "pipeline/plan/gop_parallel.h"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <thread>

namespace tc {
namespace {

int64_t pixels(const OutputPlan& output) {
  return int64_t(output.width) * output.height;
}

// Auto: an output's share of the cores (by its pixels among the outputs encoded in software),
// one encoder per kCoresPerEncoder of it.
int auto_encoders(const Plan& plan, const OutputPlan& output, unsigned cores) {
  int64_t total = 0;
  for (const OutputPlan& other : plan.outputs)
    if (!other.video_copy && !other.video.hw_frames) total += pixels(other);
  if (total <= 0) return 1;
  double share = double(cores) * double(pixels(output)) / double(total);
  return std::clamp(int(share / kCoresPerEncoder), 1, kMaxAutoEncoders);
}

int chunk_frames(const VideoEncodePlan& video) {
  int gops = std::max(1, (kMinChunkFrames + video.gop - 1) / video.gop);
  return gops * video.gop;
}

}  // namespace

std::string gop_parallel_refusal(const OutputPlan& output) {
  const VideoEncodePlan& video = output.video;
  if (output.video_copy) return "the video is copied";
  if (video.hw_frames) return video.encoder + " runs on the device";
  // x264 only, so far: the encoder whose chunks are checked (tests) to make one stream.
  if (video.encoder != "libx264") return video.encoder + " is encoded whole (libx264 only)";
  if (video.bit_rate > 0 || video.max_rate > 0)
    return "a bitrate's rate control (and its VBV buffer) spans the whole stream";
  if (video.gop <= 0) return "no fixed GOP to cut at";
  return "";
}

void plan_gop_parallel(Plan& plan, const GopParallelRequest& request) {
  if (request.encoders == 1) return;
  for (size_t k = 0; k < plan.outputs.size(); ++k) {
    OutputPlan& output = plan.outputs[k];
    std::string refusal = gop_parallel_refusal(output);
    if (!refusal.empty()) {
      // Said only when asked for: auto leaves such outputs as they always were.
      if (request.encoders > 1 && !output.video_copy)
        note_on_stage(plan, encode_stage_name(k), "one encoder: " + refusal);
      continue;
    }
    int encoders =
        request.encoders > 1 ? request.encoders : auto_encoders(plan, output, request.cores);
    if (encoders <= 1) continue;
    VideoEncodePlan& video = output.video;
    video.parallel_encoders = encoders;
    video.chunk_frames = chunk_frames(video);
    // x264's auto is 1.5 threads a core, each with frames of its own: the encoders share that,
    // so that they hold about the memory one encoder would.
    video.encoder_threads = std::max(1, int(std::lround(1.5 * request.cores / encoders)));
    note_on_stage(plan, encode_stage_name(k),
                  "GOP-parallel: " + std::to_string(encoders) + " encoders, chunks of " +
                      std::to_string(video.chunk_frames) + " frames");
  }
}

unsigned usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return unsigned(std::max(1, CPU_COUNT(&set)));
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace tc
