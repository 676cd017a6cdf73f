// The frames that crossed between a device and memory during one run of a program, counted
// outside it (hw_transfer_count.c, preloaded): the independent oracle for a report's "on the
// device" and "only these frames downloaded" claims.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tests/support/media_tools.h"

namespace tc::testing {

struct Transfers {
  // "up 640x360" or "down 320x180" (direction, then the device frame's size) -> frames copied.
  std::map<std::string, int64_t> frames;
  int64_t total(const std::string& direction) const;  // "up" or "down", every size
};

// Runs argv with the counter preloaded; fills *transfers with what it counted (nothing when the
// run copied nothing, or died before its first copy). The tally, a line a frame written as it
// happens, goes to a file in `scratch`.
ProcessResult run_counting_transfers(const std::vector<std::string>& argv, const TempDir& scratch,
                                     Transfers* transfers);

}  // namespace tc::testing
