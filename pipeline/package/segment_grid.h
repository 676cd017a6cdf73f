// Where a package's segments start: at multiples of the segment duration from an origin, the
// first frame of the track (not the source's time 0). A broadcast capture's timestamps start
// wherever the recorder joined (a TS cut mid-GOP starts seconds in): a grid from time 0 would
// make its first segment a fraction of the others. Every video rendition of a package shares
// one grid, anchored by the first video frame any of them sees, so that the keyframes forced
// where segments start (exec/output.cc) and the segmenters' cuts fall on the same instants in
// every rendition; an audio track has its own, from its first content.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>

namespace tc::package {

class SegmentGrid {
 public:
  explicit SegmentGrid(int64_t interval_us) : interval_us_(interval_us > 0 ? interval_us : 1) {}
  // The origin in microseconds of the source's timeline: `first_us` if this is the first call,
  // else what the first call set. Safe from several threads (renditions encode in parallel).
  int64_t anchor(int64_t first_us);
  // The first boundary past `at_us` and its rounding (see reached).
  int64_t boundary_after(int64_t at_us) const;
  // Whether a frame at `at_us` is at or past `boundary_us`: within a microsecond's rounding
  // (the same instant read in the encoder's and the muxer's time bases).
  static bool reached(int64_t at_us, int64_t boundary_us) { return at_us + 1 >= boundary_us; }

 private:
  const int64_t interval_us_;
  mutable std::mutex mutex_;
  std::optional<int64_t> origin_us_;
};

}  // namespace tc::package
