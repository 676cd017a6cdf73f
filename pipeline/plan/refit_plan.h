// The refit graph: what the executor builds when the decoded video changes size or format
// mid-stream (a new resolution in a broadcast, an ad break, a concatenated file). Encoders cannot
// change size, so every output keeps its planned one: the new frames are scaled to fit inside it
// keeping their display aspect, and the rest is padded black (letterbox or pillarbox), on every
// backend. The graph is written once, by the planner, for any source size: the scaler's sides
// are expressions of the frames' display aspect (`dar`), evaluated when the graph is configured.
#pragma once

#include <string>

#include "pipeline/hw/backends.h"
#include "pipeline/plan/graphs.h"

namespace tc {

// `backend`'s scaler to the largest even size inside `size` with the input's display aspect.
std::string fit_scale_filter(const BackendDesc& backend, FrameSize size, const std::string& format);

// `branch` as the refit graph has it: scaled to fit, then padded where the scaler runs; on a
// device without a pad filter in this libavfilter, the pad runs in memory (its frames come down,
// and go up again for a device encoder).
VideoBranch refit_branch(const BackendDesc& backend, bool on_device, VideoBranch branch);

// The dry run's line: the refit graph and what it costs. Empty without one.
std::string describe_refit(const Plan& plan);

}  // namespace tc
