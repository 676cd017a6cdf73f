// A mid-stream change of the decoded video: a new size (concatenated files, an ad break, a
// broadcast switching resolution), sample aspect, pixel format, or hardware frames context (a
// hwaccel calls get_format again on a new sequence and makes a new pool). The video graph's
// buffer source was configured for the old frames and cannot take these: the executor drains
// that graph into the outputs (their encoders go on) and builds the plan's refit graph
// (refit_plan.h) for the new ones, as the ffmpeg CLI rebuilds its graphs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "pipeline/core/av.h"
#include "pipeline/exec/report.h"
#include "pipeline/plan/plan.h"

namespace tc {

// The most changes a report lists. A hostile source that changes size every frame would
// otherwise make a log line and a report entry per frame, stored for the job's retention.
inline constexpr size_t kMaxReportedSourceChanges = 32;

class SourceWatch {
 public:
  // The video graph is built for frames like `frame` from now on.
  void configured(const AVFrame& frame);
  // `frame` differs from those the graph was configured for.
  bool differs(const AVFrame& frame) const;
  // Records (and logs) the change to `frame`'s source, the first kMaxReportedSourceChanges of
  // them (one line says when more are not listed). `time_base`: its pts's.
  void record(const AVFrame& frame, AVRational time_base);
  bool changed() const { return !changes_.empty(); }
  const std::vector<SourceChangeReport>& changes() const { return changes_; }

 private:
  struct Shape {
    int width = 0;
    int height = 0;
    int format = -1;
    AVRational sample_aspect{1, 1};
    av::BufferRefPtr hw_frames;  // held for its identity: a new pool is a new source
  };
  static Shape shape_of(const AVFrame& frame);
  static std::string describe(const Shape& shape);

  Shape configured_;
  int64_t first_pts_ = AV_NOPTS_VALUE;  // the first configured frame's: the outputs' time 0
  std::vector<SourceChangeReport> changes_;
  bool unlisted_ = false;  // a change past kMaxReportedSourceChanges happened
};

// The plan's graph for frames like `frame`: the refit graph once the source has changed
// (`changed`), and the fallback (which uploads first) where a planned hwaccel gave software
// frames after all.
const FilterGraphPlan& video_graph_plan(const Plan& plan, const AVFrame& frame, bool changed);

}  // namespace tc
