#include "pipeline/plan/refit_plan.h"

extern "C" {
#include <libavfilter/avfilter.h>
}

#include "pipeline/plan/graph_builder.h"

namespace tc {
namespace {

// One side: the other side times (or over) the display aspect, rounded to even, at most `limit`.
// Quoted: the commas would otherwise end the filter in the graph text.
std::string fit_side(int limit, int other, const char* aspect_op) {
  std::string limit_text = std::to_string(limit);
  return "'min(" + limit_text + ",trunc(" + std::to_string(other) + aspect_op + "dar/2+0.5)*2)'";
}

// The backend's device pad, when this libavfilter has the filter.
std::string device_pad(const BackendDesc& backend, FrameSize size) {
  if (backend.pad.empty()) return {};
  if (!avfilter_get_by_name(std::string(backend.pad.name).c_str())) return {};
  return GraphBuilder::substitute(backend.pad.text(), size.width, size.height);
}

std::string with(const std::string& first, const std::string& second) {
  return first.empty() ? second : second.empty() ? first : first + "," + second;
}

}  // namespace

std::string fit_scale_filter(const BackendDesc& backend, FrameSize size,
                             const std::string& format) {
  return GraphBuilder::substitute(backend.scale.text(), fit_side(size.width, size.height, "*"),
                                  fit_side(size.height, size.width, "/"), format);
}

VideoBranch refit_branch(const BackendDesc& backend, bool on_device, VideoBranch branch) {
  branch.fit = true;
  // x and y -1 centre the picture (vf_pad.c).
  std::string memory_pad =
      GraphBuilder::substitute("pad=%W:%H:-1:-1", branch.size.width, branch.size.height);
  if (!on_device || branch.scale_in_memory) {
    branch.after_scale = memory_pad;
    return branch;
  }
  branch.after_scale = device_pad(backend, branch.size);
  if (!branch.after_scale.empty()) return branch;
  branch.software_filters = with(memory_pad, branch.software_filters);
  // A device encoder's frames go up again, in the format the scaler gave it.
  if (!branch.download && !branch.thumbnails) branch.reupload_format = branch.device_format;
  branch.download = true;
  return branch;
}

std::string describe_refit(const Plan& plan) {
  const FilterGraphPlan& graph = plan.refit_video_graph;
  if (graph.empty()) return {};
  int transfers =
      graph.uploads + graph.downloads - plan.video_graph.uploads - plan.video_graph.downloads;
  return "after a mid-stream size or format change: every output keeps its size, the new frames "
         "scaled to fit keeping their display aspect and padded black (" +
         (transfers > 0
              ? std::to_string(transfers) + " more transfer filter(s): no pad on the device"
              : std::string("no more transfers")) +
         "): " + graph.text + "\n";
}

}  // namespace tc
