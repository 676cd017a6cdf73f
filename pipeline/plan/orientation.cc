#include "pipeline/plan/orientation.h"

#include <cmath>
#include <utility>

extern "C" {
#include <libavfilter/avfilter.h>
}

namespace tc {
namespace {

// transpose's directions, as the ffmpeg CLI's autorotate picks them: the chain and its
// filters' names.
struct MemoryTurn {
  const char* chain;
  const char* names;
};

MemoryTurn software_turn(int quarter_turns) {
  switch (quarter_turns) {
    case 1:
      return {"transpose=dir=clock", "transpose"};
    case 2:
      return {"hflip,vflip", "hflip,vflip"};
    case 3:
      return {"transpose=dir=cclock", "transpose"};
    default:
      return {"", ""};
  }
}

}  // namespace

int upright_quarter_turns(double rotation_deg) {
  if (!std::isfinite(rotation_deg)) return 0;
  long clockwise = std::lround(-rotation_deg / 90.0);
  return int(((clockwise % 4) + 4) % 4);
}

FilterDesc device_turn_filter(const BackendDesc& backend, int quarter_turns) {
  if (quarter_turns <= 0 || quarter_turns > 3) return {};
  const FilterDesc& filter = backend.turns[quarter_turns];
  if (filter.empty() || avfilter_get_by_name(std::string(filter.name).c_str()) == nullptr)
    return {};
  return filter;
}

OrientationPlan plan_orientation(const VideoInfo& video, const BackendDesc& backend,
                                 bool frames_on_device, const StageDevice& device,
                                 int fixed_pool_frames) {
  OrientationPlan plan;
  plan.quarter_turns = upright_quarter_turns(video.rotation_deg);
  if (plan.quarter_turns == 0) return plan;
  FilterDesc on_device =
      frames_on_device ? device_turn_filter(backend, plan.quarter_turns) : FilterDesc{};
  plan.on_device = !on_device.empty();
  MemoryTurn in_memory = software_turn(plan.quarter_turns);
  plan.filter = plan.on_device ? on_device.text() : in_memory.chain;
  plan.filter_names = plan.on_device ? std::string(on_device.name) : in_memory.names;
  if (plan.on_device) plan.device = device;
  if (plan.on_device && fixed_pool_frames > 0)
    plan.filter += (on_device.options.empty() ? "=" : ":") + std::string("extra_hw_frames=") +
                   std::to_string(fixed_pool_frames);
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
