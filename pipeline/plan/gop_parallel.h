// GOP-parallel encoding. On a machine with many cores one software encoder can bound a whole
// job: x264's frame threads keep a few cores busy while decode and the graph wait on it
// (bench/README.md, "Where the time goes"), and the ffmpeg CLI is bound the same way. Such an
// output's stream is cut into chunks of whole GOPs, each encoded by an encoder of its own, side by
// side (exec/chunked_encoder.h). A chunk starts where a GOP starts, so the keyframes fall where one
// encoder puts them; each chunk's encoder sees the frames a serial run gives it, so the bitstream
// does not depend on the threads.
#pragma once

#include <string>

#include "pipeline/plan/plan.h"

namespace tc {

struct GopParallelRequest {
  int encoders = 0;  // at most, per output: 0 = auto (from the cores and the outputs), 1 = off
  unsigned cores = 0;
};

// What one x264 encoder at 1080p veryfast keeps busy (about 5 cores): auto gives an output one
// encoder per this many of its share of the cores (bench/README.md, "Where the time goes").
inline constexpr double kCoresPerEncoder = 5;
// Auto never runs more encoders for one output than this: each encoder past the first costs its
// own lookahead and references, and a third bought little time for its memory
// (bench/README.md, "Two encoders at most").
inline constexpr int kMaxAutoEncoders = 2;
// Auto cuts only a ladder's outputs. Where a job has one output encoded in software, it is cut
// only when asked for (--gop-parallel N, a job's or the node's gop_parallel): its second
// encoder has no other encoder's threads to come out of (kX264ThreadsPerCoreOfShare below), so
// the speed it buys costs more memory than the ffmpeg CLI's, and on a node running several
// jobs the cut buys nothing and keeps its cost (bench/README.md, "A single output stays whole").
// x264's auto: 1.5 threads a core for every encoder, each thread with frames of its own, as if
// each encoder had the machine to itself.
inline constexpr double kX264ThreadsPerCore = 1.5;
// Where a job cuts an output into chunks, its x264 encoders share the cores by their outputs'
// pixels instead: two threads a core of its share (1.5 left a ladder's 1080p chunk encoders
// too few to keep up), split among an output's encoders, never more than x264's auto. The
// extra encoders' memory then comes out of threads that only waited for cores, and the job
// peaks near the ffmpeg CLI's memory (bench/README.md, "Threads by share").
inline constexpr double kX264ThreadsPerCoreOfShare = 2;
// A chunk has at least this many frames (whole GOPs): an all-intra stream is not cut per frame.
inline constexpr int kMinChunkFrames = 48;

// Why `output`'s video is not cut into chunks; empty when it can be.
std::string gop_parallel_refusal(const OutputPlan& output);
// The threads of each of an output's `encoders` x264 encoders with `share` (0..1) of the job's
// pixels on `cores` cores.
int x264_threads_per_encoder(unsigned cores, double share, int encoders);
// Sets every output's parallel_encoders and chunk_frames (asked for and refused: its
// one_encoder_why); where an output is cut, gives the job's x264 encoders their threads
// (kX264ThreadsPerCoreOfShare). Its encode stage says so (plan/stages.h).
void plan_gop_parallel(Plan& plan, const GopParallelRequest& request);
// The cores this process may run on (its CPU affinity).
unsigned usable_cores();

}  // namespace tc
