#include "pipeline/plan/cores.h"

#include <algorithm>
#include <string>

#include "pipeline/hw/backends.h"
#include "pipeline/plan/x264_avx512.h"

namespace tc {
namespace {

// libavcodec's MAX_AUTO_THREADS: more frame threads only hold more frames.
constexpr int kMaxDecoderThreads = 16;
constexpr int kMaxGraphThreads = 4;

void give_graphs_threads(Plan& plan, int threads) {
  for (FilterGraphPlan* graph : {&plan.video_graph, &plan.fallback_video_graph,
                                 &plan.refit_video_graph, &plan.refit_fallback_video_graph})
    graph->threads = threads;
}

}  // namespace

bool runs_stage_threads(const Plan& plan, bool branch_threads) {
  return branch_threads && backend_desc(plan.backend).stage_threads;
}

int software_decoder_threads(unsigned cores) {
  return std::clamp(int(cores / 4), 1, kMaxDecoderThreads);
}

int video_graph_threads(unsigned cores) {
  return std::clamp(int(cores), 1, kMaxGraphThreads);
}

void plan_for_cores(Plan& plan, const GopParallelRequest& request, bool branch_threads) {
  if (runs_stage_threads(plan, branch_threads)) {
    DecodePlan& decode = plan.decode;
    if (decode.needed && !decode.hw) decode.threads = software_decoder_threads(request.cores);
    give_graphs_threads(plan, video_graph_threads(request.cores));
  }
  plan_gop_parallel(plan, request);
}

void plan_for_this_machine(Plan& plan, int gop_parallel, bool branch_threads) {
  plan_for_cores(plan, {gop_parallel, usable_cores()}, branch_threads);
  keep_x264_off_avx512(plan, cpu_has_avx512());
}

}  // namespace tc
