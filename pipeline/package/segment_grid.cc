#include "pipeline/package/segment_grid.h"

#include <algorithm>

namespace tc::package {

int64_t SegmentGrid::anchor(int64_t first_us) {
  std::lock_guard lock(mutex_);
  if (!origin_us_) origin_us_ = first_us;
  return *origin_us_;
}

int64_t SegmentGrid::boundary_after(int64_t at_us) const {
  int64_t origin = 0;
  {
    std::lock_guard lock(mutex_);
    origin = origin_us_.value_or(0);
  }
  // Before the origin (an audio encoder's priming, another rendition's earlier first frame):
  // the first segment.
  int64_t since = std::max<int64_t>(at_us + 1 - origin, 0);
  int64_t index = since / interval_us_;
  return origin + (index + 1) * interval_us_;
}

}  // namespace tc::package
