// x264 on a CPU with AVX-512 reads memory it never wrote, at many widths, so that its bytes
// depend on what the heap held before: run twice, or threaded and serial, the same job can
// give other bitstreams. So in Debian 12's x264 0.164.3095, the one FFmpeg links:
//
// - encoder/slicetype.c, macroblock_tree_propagate(): mbtree propagates each row of
//   macroblocks through h->mc.mbtree_propagate_list(..., len = i_mb_width).
// - common/x86/mc-a2.asm, mbtree_propagate_list_internal_avx512: the loop takes 8 macroblocks
//   a turn and runs past `len` to the next multiple of 8. The extra entries' propagate amounts
//   come from a scratch buffer and a cost row written only up to `len`. Their motion vectors
//   can point back into the frame, and those costs are added to macroblocks that are in it.
//   The SSSE3, AVX and AVX2 versions stop at `len`.
//
// So it bites where mbtree is on (every preset but ultrafast and superfast) and the width in
// macroblocks, ceil(width / 16), is not a multiple of 8: 320, 426, 480, 854, 960 and 1366
// wide among others. 640, 1280 and 1920 are multiples (bench/README.md, "x264's AVX-512 mbtree
// reads memory it never wrote", has the runs).
//
// For such an output x264 is told to stop at AVX2 (`-x264-params asm=AVX2`, which keeps every
// extension below it). Its other AVX-512 functions go too, for a little more CPU. Every CPU
// with AVX-512 has AVX2, FMA3, BMI1/2 and LZCNT, so the mask asks for nothing the CPU lacks.
#pragma once

#include "pipeline/plan/plan.h"

namespace tc {

// Whether `output`'s video encoder, run with AVX-512, would read memory it never wrote.
bool x264_avx512_misreads(const OutputPlan& output);
// Keeps the outputs for which x264_avx512_misreads() holds off AVX-512 when `cpu_has_avx512`
// (VideoEncodePlan::without_avx512, which their encode stage says).
void keep_x264_off_avx512(Plan& plan, bool cpu_has_avx512);
// Whether this CPU and its OS run AVX-512 (x264 needs F, CD, BW, DQ and VL).
bool cpu_has_avx512();

}  // namespace tc
