#include "pipeline/plan/gop_parallel.h"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <thread>

#include "pipeline/hw/backends.h"

namespace tc {
namespace {

int64_t pixels(const OutputPlan& output) {
  return int64_t(output.width) * output.height;
}

bool encoded_in_software(const OutputPlan& output) {
  return !output.video_copy && !output.video.hw_frames;
}

// An output's share of the job's encoding work: its pixels among the outputs encoded in
// software (0 for the others).
double share_of_work(const Plan& plan, const OutputPlan& output) {
  if (!encoded_in_software(output)) return 0;
  int64_t total = 0;
  for (const OutputPlan& other : plan.outputs)
    if (encoded_in_software(other)) total += pixels(other);
  return total > 0 ? double(pixels(output)) / double(total) : 0;
}

int outputs_encoded_in_software(const Plan& plan) {
  return int(std::count_if(plan.outputs.begin(), plan.outputs.end(), encoded_in_software));
}

// Auto: one encoder per kCoresPerEncoder of an output's share of the cores, in a job with other
// outputs encoded in software (a ladder: gop_parallel.h says why only there).
int auto_encoders(const Plan& plan, const OutputPlan& output, unsigned cores) {
  if (outputs_encoded_in_software(plan) < 2) return 1;
  double share = double(cores) * share_of_work(plan, output);
  return std::clamp(int(share / kCoresPerEncoder), 1, kMaxAutoEncoders);
}

// Gives every libx264 output of a job with a cut output its encoders' threads
// (x264_threads_per_encoder).
void share_x264_threads(Plan& plan, unsigned cores) {
  for (OutputPlan& output : plan.outputs) {
    VideoEncodePlan& video = output.video;
    if (!encoded_in_software(output) || !software_encoder(video.codec).gop_parallel) continue;
    video.encoder_threads =
        x264_threads_per_encoder(cores, share_of_work(plan, output), video.parallel_encoders);
  }
}

// The software encoders that may be cut into GOP chunks, by name: "libx264".
std::string gop_parallel_encoders() {
  std::string names;
  for (const SwEncoderDesc& encoder : software_encoders())
    if (encoder.gop_parallel) names += (names.empty() ? "" : ", ") + std::string(encoder.name);
  return names;
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
  // Only the encoders whose chunks are checked (tests) to make one stream.
  if (!software_encoder(video.codec).gop_parallel)
    return video.encoder + " is encoded whole (" + gop_parallel_encoders() + " only)";
  if (video.bit_rate > 0 || video.max_rate > 0)
    return "a bitrate's rate control (and its VBV buffer) spans the whole stream";
  if (video.gop <= 0) return "no fixed GOP to cut at";
  return "";
}

int x264_threads_per_encoder(unsigned cores, double share, int encoders) {
  double threads =
      std::min(kX264ThreadsPerCore * cores, kX264ThreadsPerCoreOfShare * cores * share);
  return std::max(1, int(std::lround(threads / std::max(encoders, 1))));
}

void plan_gop_parallel(Plan& plan, const GopParallelRequest& request) {
  if (request.encoders == 1) return;
  bool cut = false;
  for (OutputPlan& output : plan.outputs) {
    std::string refusal = gop_parallel_refusal(output);
    if (!refusal.empty()) {
      // Said only when asked for: auto leaves such outputs as they always were.
      if (request.encoders > 1 && !output.video_copy) output.video.one_encoder_why = refusal;
      continue;
    }
    int encoders =
        request.encoders > 1 ? request.encoders : auto_encoders(plan, output, request.cores);
    if (encoders <= 1) continue;
    VideoEncodePlan& video = output.video;
    video.parallel_encoders = encoders;
    video.chunk_frames = chunk_frames(video);
    cut = true;
  }
  if (cut) share_x264_threads(plan, request.cores);
}

unsigned usable_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return unsigned(std::max(1, CPU_COUNT(&set)));
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace tc
