#include "tests/support/av_sync.h"

#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <sstream>

#include "tests/support/media_tools.h"

namespace tc::testing {
namespace {

constexpr double kWhiteLuma = 128;

// ffmpeg -copyts over the first `stream` ("v:0", "a:0") of `input` through `filter` to the null
// muxer: what it printed on stdout and stderr.
std::string decode_through(const std::string& input, const std::string& stream,
                           const std::string& filter, const std::string& filter_option) {
  ProcessResult run =
      run_process({"ffmpeg", "-hide_banner", "-nostats", "-copyts", "-i", input, "-map",
                   "0:" + stream, filter_option, filter, "-f", "null", "-"});
  EXPECT_EQ(run.exit_code, 0) << input << ": " << run.err;
  return run.out + run.err;
}

}  // namespace

std::vector<double> flash_times(const std::string& input) {
  std::string text = decode_through(
      input, "v:0", "signalstats,metadata=print:key=lavfi.signalstats.YAVG:file=-", "-vf");
  // "frame:0    pts:300720  pts_time:3.34133\nlavfi.signalstats.YAVG=235\n"
  static const std::regex frame(R"re(pts_time:(-?[\d.]+)\s+lavfi\.signalstats\.YAVG=([\d.]+))re");
  std::vector<double> flashes;
  bool previous_white = false;
  for (std::sregex_iterator it(text.begin(), text.end(), frame), end; it != end; ++it) {
    bool white = std::stod((*it)[2]) > kWhiteLuma;
    if (white && !previous_white) flashes.push_back(std::stod((*it)[1]));
    previous_white = white;
  }
  return flashes;
}

std::vector<double> beep_times(const std::string& input) {
  std::string text = decode_through(input, "a:0", "silencedetect=n=-30dB:d=0.1", "-af");
  static const std::regex onset(R"re(silence_end: (-?[\d.]+))re");
  std::vector<double> beeps;
  for (std::sregex_iterator it(text.begin(), text.end(), onset), end; it != end; ++it)
    beeps.push_back(std::stod((*it)[1]));
  return beeps;
}

std::vector<SyncMark> measure_sync(const std::string& input) {
  std::vector<double> beeps = beep_times(input);
  std::vector<SyncMark> marks;
  for (double flash : flash_times(input)) {
    if (beeps.empty()) break;
    double nearest = beeps.front();
    for (double beep : beeps)
      if (std::abs(beep - flash) < std::abs(nearest - flash)) nearest = beep;
    marks.push_back({flash, nearest, nearest - flash});
  }
  return marks;
}

double worst_offset(const std::vector<SyncMark>& marks) {
  double worst = 0;
  for (const SyncMark& mark : marks) worst = std::max(worst, std::abs(mark.offset_s));
  return worst;
}

}  // namespace tc::testing
