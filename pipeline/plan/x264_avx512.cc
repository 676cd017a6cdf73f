#include "pipeline/plan/x264_avx512.h"

#include <string>

#include "pipeline/hw/backends.h"

namespace tc {
namespace {

// x264 sets mbtree off for these presets (common/base.c, x264_param_default_preset).
bool preset_without_mbtree(const std::string& preset) {
  return preset == "ultrafast" || preset == "superfast";
}

}  // namespace

bool x264_avx512_misreads(const OutputPlan& output) {
  const VideoEncodePlan& video = output.video;
  if (output.video_copy || video.hw_frames || !software_encoder(video.codec).avx512_misreads)
    return false;
  if (preset_without_mbtree(video.preset)) return false;
  int macroblocks_wide = (output.width + 15) / 16;
  return macroblocks_wide % 8 != 0;
}

void keep_x264_off_avx512(Plan& plan, bool cpu_has_avx512) {
  if (!cpu_has_avx512) return;
  for (OutputPlan& output : plan.outputs) {
    if (!x264_avx512_misreads(output)) continue;
    output.video.options.emplace_back("x264-params", "asm=AVX2");
    output.video.without_avx512 = true;
  }
}

bool cpu_has_avx512() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
         __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl");
#else
  return false;  // x264's AVX-512 code is x86-64's
#endif
}

}  // namespace tc
