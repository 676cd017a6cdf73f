#include "pipeline/spec/quality_metrics.h"

#include "pipeline/core/user_text.h"

namespace tc {

Result<QualityMetrics> parse_quality_metrics(std::string_view text) {
  QualityMetrics metrics;
  if (text.empty() || text == "none") return metrics;
  for (;;) {
    size_t comma = text.find(',');
    std::string_view name = text.substr(0, comma);
    if (name == "psnr")
      metrics.psnr = true;
    else if (name == "ssim")
      metrics.ssim = true;
    else
      return Status(Code::kInvalidArgument, "unknown quality metric " + quote_value(name) +
                                                " (psnr, ssim, or both: psnr,ssim)");
    if (comma == std::string_view::npos) return metrics;
    text = text.substr(comma + 1);  // "psnr," leaves "": an unknown (empty) metric
  }
}

std::string name_of(const QualityMetrics& metrics) {
  if (metrics.psnr && metrics.ssim) return "psnr,ssim";
  return metrics.psnr ? "psnr" : metrics.ssim ? "ssim" : "";
}

}  // namespace tc
