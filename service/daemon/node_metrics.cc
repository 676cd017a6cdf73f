#include "service/daemon/node_metrics.h"

namespace tc::daemon {

const std::vector<double>& DurationHistogram::bounds() {
  static const std::vector<double> seconds = {1, 5, 10, 30, 60, 120, 300, 600, 1800, 3600};
  return seconds;
}

void DurationHistogram::observe(double seconds) {
  size_t i = 0;
  while (i < bounds().size() && seconds > bounds()[i]) ++i;
  counts[i] += 1;
  count += 1;
  sum += seconds;
}

}  // namespace tc::daemon
