// The thumbnails' plan: the tile size from the spec and the source (checked against it), where
// the files go, and the graph branch that picks and scales the tiles like any output's branch.
#pragma once

#include "pipeline/hw/backends.h"
#include "pipeline/plan/graphs.h"
#include "pipeline/plan/plan.h"

namespace tc {

// `on_device`: the job's frames are scaled on `gpu`. kInvalidArgument naming the field when the
// tile is larger than the source or a sheet larger than an encoder's side.
Result<ThumbnailPlan> plan_thumbnails(const JobSpec& spec, const VideoInfo& video, bool on_device,
                                      const StageDevice& gpu);
// The graph branch: a select of one frame per interval, the backend's scaler to the tile size,
// then down to memory (on a device) in the sheets' pixel format. Its sink is "thumbs".
VideoBranch thumbnail_branch(const BackendDesc& backend, const ThumbnailPlan& thumbnails,
                             bool on_device, int source_depth);
// The thumbnails' stages (download, encode), which follow the outputs'; none without thumbnails.
std::vector<Stage> thumbnail_stages(const Plan& plan);

}  // namespace tc
