#include "pipeline/plan/orientation.h"

#include <cmath>
#include <utility>

extern "C" {
#include <libavfilter/avfilter.h>
}

namespace tc {
namespace {

// transpose's directions, as the ffmpeg CLI's autorotate picks them.
std::string software_turn_filter(int quarter_turns) {
  switch (quarter_turns) {
    case 1:
      return "transpose=dir=clock";
    case 2:
      return "hflip,vflip";
    case 3:
      return "transpose=dir=cclock";
    default:
      return "";
  }
}

}  // namespace

int upright_quarter_turns(double rotation_deg) {
  if (!std::isfinite(rotation_deg)) return 0;
  long clockwise = std::lround(-rotation_deg / 90.0);
  return int(((clockwise % 4) + 4) % 4);
}

std::string device_turn_filter(const BackendDesc& backend, int quarter_turns) {
  if (quarter_turns <= 0 || quarter_turns > 3) return "";
  std::string filter(backend.turns[quarter_turns]);
  std::string name = filter.substr(0, filter.find('='));
  if (name.empty() || avfilter_get_by_name(name.c_str()) == nullptr) return "";
  return filter;
}

OrientationPlan plan_orientation(const VideoInfo& video, const BackendDesc& backend,
                                 bool frames_on_device, const StageDevice& device,
                                 int fixed_pool_frames) {
  OrientationPlan plan;
  plan.quarter_turns = upright_quarter_turns(video.rotation_deg);
  if (plan.quarter_turns == 0) return plan;
  std::string on_device = frames_on_device ? device_turn_filter(backend, plan.quarter_turns) : "";
  plan.on_device = !on_device.empty();
  plan.filter = plan.on_device ? on_device : software_turn_filter(plan.quarter_turns);
  if (plan.on_device) plan.device = device;
  if (plan.on_device && fixed_pool_frames > 0)
    plan.filter += (on_device.find('=') == std::string::npos ? "=" : ":") +
                   std::string("extra_hw_frames=") + std::to_string(fixed_pool_frames);
  plan.why = "display matrix: " + std::to_string(plan.quarter_turns * 90) +
             " degrees clockwise; the pixels are turned upright";
  return plan;
}

VideoInfo displayed(const VideoInfo& video) {
  VideoInfo shown = video;
  if (upright_quarter_turns(video.rotation_deg) % 2) std::swap(shown.width, shown.height);
  return shown;
}

}  // namespace tc
