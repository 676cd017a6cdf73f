// The stages `--quality` adds to a plan, so that the plan (and --dry-run) says it is on and what
// it costs.
#pragma once

#include <vector>

#include "pipeline/plan/plan.h"

namespace tc {

// A "measure outK" stage for every output that encodes video (a copy is the source: nothing to
// measure); none when the plan measures no metric (Plan::quality_metrics).
std::vector<Stage> quality_stages(const Plan& plan);

}  // namespace tc
