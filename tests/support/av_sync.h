// An A/V sync meter for the flash/beep sources (corpus::flash_beep): the ffmpeg CLI decodes a
// file or a package (its HLS master playlist or DASH MPD) and finds when each white frame and
// each beep is presented. The times are the media's (-copyts), so a package's tracks are
// compared on the timeline the player uses for both, never through our own report.
#pragma once

#include <string>
#include <vector>

namespace tc::testing {

struct SyncMark {
  double flash_s = 0;   // a white frame's presentation time
  double beep_s = 0;    // the nearest beep onset
  double offset_s = 0;  // beep - flash: > 0 when the sound comes late
};

// The presentation times of the white frames (luma average over 128) of the first video
// stream of `input`, one per run of white frames (its first frame).
std::vector<double> flash_times(const std::string& input);
// The onsets of the beeps (the ends of silences of 0.1 s or more, -30 dB) in the first audio
// stream of `input`.
std::vector<double> beep_times(const std::string& input);
// Each flash with the beep nearest to it. Failures of ffmpeg are reported through gtest.
std::vector<SyncMark> measure_sync(const std::string& input);
// The largest |offset| over `marks` (0 with none).
double worst_offset(const std::vector<SyncMark>& marks);

}  // namespace tc::testing
