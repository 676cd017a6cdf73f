// A one-line progress bar on a terminal (frames, fps, speed, ETA), and the human report.
#pragma once

#include <cstdio>
#include <string>

#include "pipeline/exec/executor.h"

namespace tc::cli {

class ProgressBar {
 public:
  // Draws only when `enabled` and `stream` is a terminal.
  ProgressBar(bool enabled, std::FILE* stream = stderr);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // `detail` follows the figures on the same line (the daemon's live engine use).
  void update(const Progress& progress, const std::string& detail = {});
  // Ends the bar's line (once); called by the destructor too.
  void finish();

 private:
  std::FILE* stream_;
  bool active_;
  bool drawn_ = false;
};

// "frames 300, 10.0 s in 2.1 s: 143 fps, 4.8x ..." plus a line per output.
std::string format_report(const JobReport& report);

}  // namespace tc::cli
