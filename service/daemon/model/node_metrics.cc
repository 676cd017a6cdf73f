#include "service/daemon/model/node_metrics.h"

namespace tc::daemon {

const std::vector<double>& duration_bounds() {
  static const std::vector<double> seconds = {1, 5, 10, 30, 60, 120, 300, 600, 1800, 3600};
  return seconds;
}

const std::vector<double>& psnr_bounds() {
  // Dense where encodes live: below 30 dB artefacts are plain, above 45 dB hard to see.
  static const std::vector<double> db = {20, 25, 30, 32, 34, 36, 38, 40, 42, 45, 50};
  return db;
}

const std::vector<double>& ssim_bounds() {
  static const std::vector<double> ssim = {0.5, 0.8, 0.9, 0.95, 0.97, 0.98, 0.99, 0.995, 0.999};
  return ssim;
}

}  // namespace tc::daemon
