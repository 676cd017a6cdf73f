// How a plan uses this machine's cores, once it is made (make_plan stays a function of the job
// alone): the software decoder's threads, and GOP-parallel encoding (gop_parallel.h).
#pragma once

#include "pipeline/plan/gop_parallel.h"
#include "pipeline/plan/plan.h"

namespace tc {

// The software decoder's threads on `cores` cores: half of them, at least one, at most 16
// (libavcodec's own limit for auto). libavcodec's auto, cores + 1, suits a program that filters
// and encodes between its calls to the decoder, as the ffmpeg 5.1 CLI does. Here the decoder is
// one stage beside the graph's thread and the encoders' threads, which keep the other cores
// busy, and each frame thread holds a frame and a copy of the decoder's state (about 7 MiB at
// 1080p H.264). Measured (bench/README.md, "Decoder threads"): 1 thread on 2 cores and 8 on 16
// ran as fast as auto and held 13 and 53 MiB less.
int software_decoder_threads(unsigned cores);

// Gives a software decoder its threads and each output its GOP-parallel encoders for
// `request.cores`, and says so on their stages.
void plan_for_cores(Plan& plan, const GopParallelRequest& request);

}  // namespace tc
