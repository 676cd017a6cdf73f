// Which quality figures a job measures of each output against its source (`--quality`, JSON key
// "quality_metrics"): off by default, since measuring decodes every output again.
#pragma once

#include <string>
#include <string_view>

#include "pipeline/core/status.h"

namespace tc {

struct QualityMetrics {
  bool psnr = false;
  bool ssim = false;
  bool any() const { return psnr || ssim; }
  bool operator==(const QualityMetrics&) const = default;
};

// "psnr", "ssim", "psnr,ssim" (either order); "" or "none" for none.
Result<QualityMetrics> parse_quality_metrics(std::string_view text);
// The inverse: "psnr,ssim", "psnr", "ssim", or "" for none.
std::string name_of(const QualityMetrics& metrics);

}  // namespace tc
