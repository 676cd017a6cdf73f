#include "pipeline/plan/graphs.h"

#include <algorithm>

#include "pipeline/plan/graph_builder.h"
#include "pipeline/plan/refit_plan.h"
#include "pipeline/plan/video_format.h"

namespace tc {
namespace {

std::string join(std::string first, const std::string& second) {
  if (first.empty()) return second;
  if (second.empty()) return first;
  return first + "," + second;
}

std::string label(std::string_view prefix, size_t output) {
  return std::string(prefix).append(std::to_string(output));
}

void sort_sinks(FilterGraphPlan& graph) {
  std::sort(graph.sinks.begin(), graph.sinks.end(),
            [](const GraphSink& a, const GraphSink& b) { return a.output < b.output; });
}

// parent[i]: the branch whose scaled frames branch i scales from; -1 = the source. Branches are
// sorted largest first.
std::vector<int> scale_parents(const VideoSource& source,
                               const std::vector<VideoBranch>& branches) {
  std::vector<int> parent(branches.size(), -1);
  if (!source.on_device && !source.refit)
    for (size_t i = 1; i < branches.size(); ++i)
      if (branches[i].size.fits_in(branches[i - 1].size)) parent[i] = int(i) - 1;
  return parent;
}

}  // namespace

const GraphSink* FilterGraphPlan::sink_of(size_t output) const {
  for (const GraphSink& sink : sinks)
    if (sink.output == output) return &sink;
  return nullptr;
}

std::string FilterGraphPlan::sink_label(size_t output) const {
  const GraphSink* sink = sink_of(output);
  return sink ? sink->label : std::string();
}

namespace {

// The graph's input: deinterlaced (in memory or on the device) and uploaded first when frames
// decoded in memory are scaled on the device; converted on the device before its deinterlacer
// and turn where those could not write the frames' format.
Tap source_tap(const BackendDesc& backend, const VideoSource& source, FilterGraphPlan& plan) {
  Tap input{"[in]", ""};
  if (!source.deinterlace_on_device) input.filters = source.deinterlace;
  if (!source.turn_on_device) input.filters = join(input.filters, source.turn);
  if (source.upload) {
    std::string upload = GraphBuilder::substitute(backend.upload, 0, 0, source.upload_format);
    if (source.upload_extra_frames > 0)
      upload += "=extra_hw_frames=" + std::to_string(source.upload_extra_frames);
    input.filters = join(input.filters, upload);
    ++plan.uploads;
  }
  if (!source.device_convert.empty()) {
    input.filters = join(input.filters, source.device_convert);
    ++plan.scalers;
  }
  if (source.deinterlace_on_device) input.filters = join(input.filters, source.deinterlace);
  if (source.turn_on_device) input.filters = join(input.filters, source.turn);
  return input;
}

// The sizes a scaler goes through from `from` to `to`, each step at most `max_ratio` smaller
// (halving from the target's side), ending at `to`.
std::vector<FrameSize> scale_steps(FrameSize from, FrameSize to, int max_ratio) {
  std::vector<FrameSize> steps{to};
  if (max_ratio < 2) return steps;
  for (FrameSize step = to;;) {
    FrameSize larger{step.width * max_ratio, step.height * max_ratio};
    if (larger.width >= from.width || larger.height >= from.height) break;
    steps.insert(steps.begin(), larger);
    step = larger;
  }
  return steps;
}

// A branch whose frames only come down for a software encoder leaves the download to its
// output's thread (exec/chunked_encoder.cc): a ladder's downloads then run side by side, not one
// after another on the graph's thread, and the frames waiting for a GOP chunk's encoder wait on
// the device, not in memory. Only where the frames an output holds come from a pool that grows:
// not where the device's pools are fixed. Where the scaler could pass the decoder's frames
// through, it is told not to (BackendDesc::scale_own_frames).
bool downloads_at_output(const BackendDesc& backend, const VideoSource& source,
                         const VideoBranch& branch) {
  return branch.download && !branch.scale_in_memory && !branch.thumbnails &&
         branch.software_filters.empty() && branch.convert_to.empty() &&
         branch.reupload_format.empty() && !backend.fixed_pools && !source.refit;
}

// Scaling from `from` to the branch's size: always on a device (it also converts and gives the
// branch its own pool, unless it passes frames of the same size and format through, as
// scale_cuda does unless told not to), in memory only when the size changes.
std::string download_filters(const BackendDesc& backend, const VideoBranch& branch) {
  return GraphBuilder::substitute(backend.download, 0, 0, branch.device_format);
}

// A branch scaled in memory: down first (hwdownload maps the surface: no VPP step), then the
// software scaler where the size changes.
std::string memory_scale_filter(const BackendDesc& backend, const VideoBranch& branch,
                                FrameSize from) {
  const BackendDesc& memory = backend_desc(BackendKind::kSoftware);
  std::string scale;
  if (branch.fit)
    scale = fit_scale_filter(memory, branch.size, "");
  else if (!(branch.size == from))
    scale = GraphBuilder::substitute(memory.scale.text(), branch.size.width, branch.size.height);
  return join(branch.select,
              join(download_filters(backend, branch), join(scale, branch.after_scale)));
}

std::string scale_filter(const BackendDesc& backend, const VideoSource& source,
                         const VideoBranch& branch, FrameSize from, FilterGraphPlan& plan) {
  if (branch.scale_in_memory) return memory_scale_filter(backend, branch, from);
  if (!source.on_device && branch.size == from && !branch.fit) return branch.select;
  std::string chain;
  std::vector<FrameSize> steps = scale_steps(from, branch.size, backend.scale_max_ratio);
  if (branch.fit) {  // its source's size is not known yet: one step, sized when configured
    steps.clear();
    ++plan.scalers;
    chain = fit_scale_filter(backend, branch.size, branch.device_format);
  }
  for (const FrameSize& step : steps) {
    ++plan.scalers;
    chain = join(chain, GraphBuilder::substitute(backend.scale.text(), step.width, step.height,
                                                 branch.device_format));
  }
  if (branch.size == from && !backend.scale_own_frames.empty() &&
      downloads_at_output(backend, source, branch))
    chain += ":" + std::string(backend.scale_own_frames);
  if (branch.held_frames > 0)
    chain += ":extra_hw_frames=" +
             std::to_string(std::max(branch.held_frames, backend.scale_min_extra_frames));
  chain = join(chain, branch.after_scale);
  // Frames a branch does not take are dropped before they cost a scale.
  return join(branch.select, join(branch.device_filters, chain));
}

// After scaling: down to memory for a software encoder, the software filters, then the
// encoder's format (and up again for a device encoder fed by a software filter).
std::string tail_filters(const BackendDesc& backend, const VideoSource& source,
                         const VideoBranch& branch, FilterGraphPlan& plan) {
  plan.downloads += branch.download;
  bool in_graph =
      branch.download && !branch.scale_in_memory && !downloads_at_output(backend, source, branch);
  std::string tail = join(branch.rate, in_graph ? download_filters(backend, branch) : "");
  tail = join(tail, branch.software_filters);
  if (!branch.convert_to.empty()) tail = join(tail, "format=" + branch.convert_to);
  if (!branch.reupload_format.empty()) {
    tail = join(tail, GraphBuilder::substitute(backend.upload, 0, 0, branch.reupload_format));
    if (branch.held_frames > 0) tail += "=extra_hw_frames=" + std::to_string(branch.held_frames);
    ++plan.uploads;
  }
  return tail;
}

}  // namespace

FilterGraphPlan build_video_graph(const BackendDesc& backend, const VideoSource& source,
                                  std::vector<VideoBranch> branches) {
  FilterGraphPlan plan;
  GraphBuilder graph("split");
  std::stable_sort(
      branches.begin(), branches.end(),
      [](const VideoBranch& a, const VideoBranch& b) { return a.size.area() > b.size.area(); });
  std::vector<int> parent = scale_parents(source, branches);
  auto children_of = [&](int node) { return int(std::count(parent.begin(), parent.end(), node)); };

  std::vector<std::vector<Tap>> taps(branches.size() + 1);  // taps[0] = the source's
  taps[0] = graph.fan_out(source_tap(backend, source, plan), "", children_of(-1));
  std::vector<size_t> next_tap(branches.size() + 1, 0);
  for (size_t i = 0; i < branches.size(); ++i) {
    const VideoBranch& branch = branches[i];
    Tap in = taps[parent[i] + 1][next_tap[parent[i] + 1]++];
    FrameSize from = parent[i] < 0 ? source.size : branches[parent[i]].size;
    taps[i + 1] = graph.fan_out(in, scale_filter(backend, source, branch, from, plan),
                                1 + children_of(int(i)));
    next_tap[i + 1] = 1;  // tap 0 is this branch's own; the rest feed its children
    std::string sink = branch.thumbnails ? "thumbs" : label("out", branch.output);
    graph.terminate(taps[i + 1][0], tail_filters(backend, source, branch, plan), sink);
    plan.sinks.push_back({sink, branch.output, branch.thumbnails});
    if (downloads_at_output(backend, source, branch))
      plan.sinks.back().download_at_output = download_filters(backend, branch);
  }
  plan.text = graph.text();
  sort_sinks(plan);
  return plan;
}

FilterGraphPlan build_audio_graph(const std::vector<AudioBranch>& branches, int stream) {
  FilterGraphPlan plan;
  if (branches.empty()) return plan;
  GraphBuilder graph("asplit");
  std::vector<Tap> taps =
      graph.fan_out({"[ain]", ""}, "aformat=sample_fmts=fltp", int(branches.size()));
  for (size_t i = 0; i < branches.size(); ++i) {
    const AudioBranch& branch = branches[i];
    std::string sink = label("a" + std::to_string(stream) + "out", branch.output);
    if (branch.stereo_rendition) sink += "s";
    graph.terminate(taps[i], branch.tail, sink);
    plan.sinks.push_back({sink, branch.output});
    plan.sinks.back().audio = branch.audio;
  }
  plan.text = graph.text();
  return plan;
}

}  // namespace tc
