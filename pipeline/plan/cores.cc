#include "pipeline/plan/cores.h"

#include <algorithm>
#include <string>

#include "pipeline/hw/backends.h"

namespace tc {
namespace {

// libavcodec's MAX_AUTO_THREADS: more frame threads only hold more frames.
constexpr int kMaxDecoderThreads = 16;

}  // namespace

bool runs_stage_threads(const Plan& plan, bool branch_threads) {
  return branch_threads && backend_desc(plan.backend).stage_threads;
}

int software_decoder_threads(unsigned cores) {
  return std::clamp(int(cores / 2), 1, kMaxDecoderThreads);
}

void plan_for_cores(Plan& plan, const GopParallelRequest& request, bool branch_threads) {
  DecodePlan& decode = plan.decode;
  if (decode.needed && !decode.hw && runs_stage_threads(plan, branch_threads)) {
    decode.threads = software_decoder_threads(request.cores);
    note_on_stage(plan, "decode",
                  std::to_string(decode.threads) + (decode.threads == 1 ? " thread" : " threads"));
  }
  plan_gop_parallel(plan, request);
}

}  // namespace tc
