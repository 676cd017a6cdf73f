// How a plan uses this machine's cores, once it is made (make_plan stays a function of the job
// alone): the software decoder's and the video graph's threads, and GOP-parallel encoding
// (gop_parallel.h).
#pragma once

#include "pipeline/plan/gop_parallel.h"
#include "pipeline/plan/plan.h"

namespace tc {

// Whether a job runs its stages on threads of their own (exec/branch_lane.h): asked for
// (`branch_threads`, false with --serial) and where its backend allows it (not Vulkan's).
bool runs_stage_threads(const Plan& plan, bool branch_threads);

// The software decoder's threads on `cores` cores where the stages run on threads: a quarter of
// them, at least one, at most 16 (libavcodec's own limit for auto). libavcodec's auto, cores + 1,
// suits a program that filters and encodes between its calls to the decoder, as the ffmpeg 5.1
// CLI and our serial executor do. With stage threads the decoder is one stage beside the graph's
// thread and the encoders' threads, which keep the other cores busy, and each frame thread holds
// a frame and a copy of the decoder's state (about 7 MiB at 1080p H.264). Measured
// (bench/README.md, "Decoder threads", "Threads by share"): 1 thread on 2 cores and 8 on 16 ran
// as fast as auto and held 13 and 53 MiB less; 4 on 16 as fast as 8 (0.99 of ffmpeg 7.1 on the
// ladder with one encoder an output, 0.88 against 0.89 with GOP-parallel) and 20-40 MiB less; the
// serial executor with 1 thread on 2 cores ran 8 % slower.
int software_decoder_threads(unsigned cores);

// The video graph's slice threads where the stages run on threads: the cores, at most 4.
// libavfilter's auto is cores + 1. A scaler waits for its slowest slice, and while the encoders'
// threads hold every core each slice waits its turn: on the H200's 16 cores 4 slices kept the
// graph busy 1.55 s of a software ladder against 2.27 s with 16, the same bytes out
// (bench/README.md, "Graph threads").
int video_graph_threads(unsigned cores);

// Where the stages run on threads, gives a software decoder and the video graphs their threads
// (libavcodec's and libavfilter's auto otherwise); gives each output its GOP-parallel encoders
// for `request.cores`. Their stages say so (plan/stages.h).
void plan_for_cores(Plan& plan, const GopParallelRequest& request, bool branch_threads);
// plan_for_cores() with this process's usable cores, and keep_x264_off_avx512()
// (x264_avx512.h) with this CPU: what a job's plan takes from the machine it runs on.
void plan_for_this_machine(Plan& plan, int gop_parallel, bool branch_threads);

}  // namespace tc
