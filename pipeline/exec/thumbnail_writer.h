// Thumbnails as a job runs: every tile the graph's "thumbs" sink gives (one frame per interval,
// already scaled to the tile size and in memory) is copied into the current sprite sheet; a full
// sheet is encoded with libavcodec's mjpeg and written, and at the end the last sheet and the
// WebVTT index whose cues point at `sheet_N.jpg#xywh=x,y,w,h`. Inside a package the files go
// into its partial directory (published with it); otherwise each is a temp file beside the first
// output, renamed with the outputs. A failed or cancelled job leaves none of them.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/core/av.h"
#include "pipeline/exec/report.h"
#include "pipeline/io/temp_file.h"
#include "pipeline/plan/plan.h"

namespace tc {
namespace package {
class PackageDir;
}  // namespace package

class ThumbnailWriter {
 public:
  // `package`: the package's directory when plan.in_package (it outlives the writer's use).
  // `attempt` names the temp files beside the outputs (io::partial_name).
  static Result<std::unique_ptr<ThumbnailWriter>> create(const ThumbnailPlan& plan,
                                                         const io::Roots& roots,
                                                         package::PackageDir* package, int attempt);
  // A tile from the graph; its pts in `time_base` (media time from the trim start).
  Status add(const AVFrame& tile, AVRational time_base);
  // Writes the last sheet and the index; `media_end_s` ends the last cue.
  Status finish(double media_end_s);
  // Gives the files beside the outputs their names (a package's are published with it).
  Status commit();
  ThumbnailReport report() const;

 private:
  ThumbnailWriter(const ThumbnailPlan& plan, const io::Roots& roots, package::PackageDir* package,
                  int attempt)
      : plan_(plan), roots_(roots), package_(package), attempt_(attempt) {}
  struct Cue {
    int64_t interval = 0;  // the tile shows media time [interval, interval + 1) * interval_s
    int sheet = 0;         // numbered from 1
    int x = 0;
    int y = 0;
  };
  // Whether the thumbnails beside the outputs may take their names (thumbnail_ownership.h).
  Status check_ours() const;
  Status start_sheet();
  Status write_sheet();
  Status write_file(const std::string& name, const std::string& bytes);
  std::string index_text(double media_end_s) const;
  std::string path_of(const std::string& name) const;

  ThumbnailPlan plan_;
  const io::Roots& roots_;
  package::PackageDir* package_;
  int attempt_;
  av::FramePtr sheet_;  // the sheet being filled
  int tiles_in_sheet_ = 0;
  std::vector<Cue> cues_;
  std::vector<std::string> sheets_;    // written, in order
  std::vector<io::TempFile> pending_;  // beside the outputs, until commit()
};

// The thumbnails part of a job's summary: a line.
std::string describe_thumbnail_report(const ThumbnailReport& thumbnails);

}  // namespace tc
