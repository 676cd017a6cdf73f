// GOP-parallel encoding. On a machine with many cores one software encoder can bound a whole
// job: at 1080p veryfast x264's frame threads used 5 of the H200's 16 cores while decode and the
// graph waited on it (bench/README.md, "Where the time goes"), and the ffmpeg CLI is bound the
// same way. Such an output's stream is cut into chunks of whole GOPs, each encoded by an encoder
// of its own, side by side (exec/chunked_encoder.h). A chunk starts where a GOP starts, so the
// keyframes fall where one encoder puts them; each chunk's encoder sees the frames a serial run
// gives it, so the bitstream does not depend on the threads.
#pragma once

#include <string>

#include "pipeline/plan/plan.h"

namespace tc {

struct GopParallelRequest {
  int encoders = 0;  // at most, per output: 0 = auto (from the cores and the outputs), 1 = off
  unsigned cores = 0;
};

// What one x264 encoder at 1080p veryfast kept busy on the H200 (5.05 cores): auto gives an
// output one encoder per this many of its share of the cores.
inline constexpr double kCoresPerEncoder = 5;
// Auto never runs more encoders for one output than this. Each encoder past the first costs its
// own lookahead and references: on the H200 a single 720p output with 3 encoders peaked at
// 657-662 MiB and ran 0.80-0.81 of the ffmpeg 7.1 CLI's time, with 2 at 582-583 MiB and
// 0.82-0.84 (two calls; one encoder: 375 MiB, 0.89-0.91; ffmpeg 7.1: 453 MiB).
// bench/README.md, "Two encoders at most".
inline constexpr int kMaxAutoEncoders = 2;
// Auto cuts only a ladder's outputs. Where a job has one output encoded in software, it is cut
// only when asked for (--gop-parallel N, a job's or the node's gop_parallel): its second
// encoder has no other encoder's threads to come out of (kX264ThreadsPerCoreOfShare below), and
// the speed it buys costs more memory than the ffmpeg CLI's. On the H200 a single 720p output
// with 2 encoders peaked at 1.14-1.16 times the ffmpeg 7.1 CLI's memory (software 516-527 MiB
// against 453, cuda 569-579 against 499) at 0.79-0.95 of its time; whole, it stays below 7.1's
// memory (358 and 439 MiB) at 0.91-0.99 (software) and 0.83-0.98 (cuda) of its time; at
// 0.91-0.94 and 0.94-0.95 in the three calls since this rule. On a node running several jobs the
// cut buys nothing and keeps its cost. bench/README.md, "A single output stays whole".
// x264's auto: 1.5 threads a core for every encoder, each thread with frames of its own, as if
// each encoder had the machine to itself.
inline constexpr double kX264ThreadsPerCore = 1.5;
// Where a job cuts an output into chunks, its x264 encoders share the cores by their outputs'
// pixels instead: two threads a core of its share (1.5 left a ladder's 1080p chunk encoders
// too few to keep up), split among an output's encoders, never more than x264's auto. On the
// H200 a software ladder's 1080p chunk encoders then run 10 threads each, its 720p 9 and its
// 360p 2, where auto gave them 12, 22 and 11: the extra encoder's memory comes out of threads
// that only waited for cores, and the job peaks at the ffmpeg 7.1 CLI's (1192-1226 MiB against
// 1222-1225; 1452 before), at 0.90 of its time (bench/README.md, "Threads by share").
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
