// corpus_sources DIR: writes the customer-like sources that tests/gpu/corpus-run puts through the
// cuda and software backends, with this machine's FFmpeg (the GPU machine's has only libx264, so
// the HEVC, AC-3 and 10-bit sources are made on a development machine and carried there). The
// makers are tests/support/corpus.h's; this only names the files. Exit 1 when a maker failed.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/corpus.h"

namespace corpus = tc::testing::corpus;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: corpus_sources DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  const std::vector<std::pair<std::string, std::function<void(const std::string&)>>> sources = {
      {"hdr10_4k.mp4", corpus::hdr10_hevc_4k},
      {"mezz_422_10.mov",
       [](const std::string& p) { corpus::mezzanine_10bit(p, "yuv422p10le", "h264"); }},
      {"mezz_444_10.mov",
       [](const std::string& p) { corpus::mezzanine_10bit(p, "yuv444p10le", "h264"); }},
      {"ac3_51.mkv", [](const std::string& p) { corpus::surround_51(p, "ac3"); }},
      {"phone_rot90.mp4", [](const std::string& p) { corpus::phone_rotated_vfr(p, 90); }},
      {"screen_vfr.mp4", corpus::screen_recording_vfr},
      {"capture_lead.ts", [](const std::string& p) { corpus::flash_beep(p, 4, 0.5, "mpegts"); }},
      {"broadcast_cut.ts", corpus::broadcast_ts_cut_mid_gop},
  };
  // The makers report a refused ffmpeg through GoogleTest's assertions, which count as failures
  // of the (absent) current test; a listener is not needed to see them: they print, and
  // HasFailure() below says so.
  ::testing::InitGoogleTest(&argc, argv);
  for (const auto& [name, make] : sources) {
    make(dir + "/" + name);
    std::printf("%s\n", name.c_str());
  }
  return ::testing::Test::HasFailure() ? 1 : 0;
}
