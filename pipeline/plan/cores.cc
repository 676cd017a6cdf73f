#include "pipeline/plan/cores.h"

#include <algorithm>
#include <string>

namespace tc {
namespace {

// libavcodec's MAX_AUTO_THREADS: more frame threads only hold more frames.
constexpr int kMaxDecoderThreads = 16;

// "h264 (software)" -> "h264 (software, 8 threads)".
void note_threads(Plan& plan, int threads) {
  std::string note = std::to_string(threads) + (threads == 1 ? " thread" : " threads");
  for (Stage& stage : plan.stages) {
    if (stage.name != "decode") continue;
    if (!stage.what.empty() && stage.what.back() == ')')
      stage.what.insert(stage.what.size() - 1, ", " + note);
    else
      stage.what += " (" + note + ")";
  }
}

}  // namespace

int software_decoder_threads(unsigned cores) {
  return std::clamp(int(cores / 2), 1, kMaxDecoderThreads);
}

void plan_for_cores(Plan& plan, const GopParallelRequest& request) {
  DecodePlan& decode = plan.decode;
  if (decode.needed && !decode.hw) {
    decode.threads = software_decoder_threads(request.cores);
    note_threads(plan, decode.threads);
  }
  plan_gop_parallel(plan, request);
}

}  // namespace tc
