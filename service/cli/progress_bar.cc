#include "service/cli/progress_bar.h"

#include "pipeline/exec/progress_estimate.h"
#include "pipeline/exec/thumbnail_writer.h"
#include "pipeline/package/package_writer.h"

#include <unistd.h>

#include <cmath>
#include <sstream>

namespace tc::cli {
namespace {

std::string clock_text(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "--:--";
  int whole = int(seconds + 0.5);
  char text[32];
  std::snprintf(text, sizeof text, "%d:%02d", whole / 60, whole % 60);
  return text;
}

}  // namespace

ProgressBar::ProgressBar(bool enabled, std::FILE* stream)
    : stream_(stream), active_(enabled && isatty(fileno(stream))) {}

ProgressBar::~ProgressBar() {
  finish();
}

void ProgressBar::update(const Progress& progress, const std::string& detail) {
  if (!active_) return;
  constexpr int kWidth = 30;
  double done = progress_percent(progress).value_or(0) / 100;
  int filled = int(done * kWidth);
  std::string bar = std::string(filled, '#') + std::string(kWidth - filled, '.');
  double eta = progress_eta_s(progress).value_or(-1);
  // \033[K clears what a longer previous line left.
  std::fprintf(stream_, "\r[%s] %3d%%  frames %lld  %.1f fps  %.2fx  ETA %s %s\033[K", bar.c_str(),
               int(done * 100), static_cast<long long>(progress.frames_decoded), progress.fps,
               progress.speed, clock_text(eta).c_str(), detail.c_str());
  std::fflush(stream_);
  drawn_ = true;
}

void ProgressBar::finish() {
  if (drawn_) std::fputc('\n', stream_);
  drawn_ = false;
}

std::string format_report(const JobReport& report) {
  std::ostringstream text;
  char line[256];
  std::snprintf(line, sizeof line,
                "%s: %lld frames, %.2f s of media in %.2f s (%.1f fps, %.2fx), cpu %.2f s\n",
                report.input.c_str(), static_cast<long long>(report.frames_decoded),
                report.media_duration_s, report.wall_s, report.fps, report.speed, report.cpu_s);
  text << line << "backend: " << report.backend << " (" << report.backend_reason << ")\n";
  for (const OutputReport& output : report.outputs) {
    std::snprintf(line, sizeof line,
                  "  %s: %dx%d %s [%s], %lld frames, %.2f s, %lld bytes, %.0f kb/s\n",
                  output.path.c_str(), output.width, output.height, output.encoder.c_str(),
                  output.device.c_str(), static_cast<long long>(output.frames), output.duration_s,
                  static_cast<long long>(output.bytes), output.bitrate / 1000.0);
    text << line;
    if (output.quality) text << "    quality: " << quality_text(*output.quality) << "\n";
  }
  if (report.package) text << package::describe_package_report(*report.package);
  if (report.thumbnails) text << describe_thumbnail_report(*report.thumbnails);
  for (const SourceChangeReport& change : report.source_changes) {
    std::snprintf(line, sizeof line,
                  "source changed at %.2f s: %s -> %s (outputs kept their sizes)\n", change.time_s,
                  change.from.c_str(), change.to.c_str());
    text << line;
  }
  text << "stages:\n";
  for (const Stage& stage : report.stages)
    text << "  " << stage.name << ": " << stage.component << " [" << stage.device.to_string()
         << "]\n";
  std::vector<std::string> paths;
  for (const OutputReport& output : report.outputs) paths.push_back(output.path);
  text << describe_streams(report.streams, paths);
  return text.str();
}

}  // namespace tc::cli
