// The stages `--quality` adds to a plan, so that the plan (and --dry-run) says it is on and what
// it costs.
#pragma once

#include "pipeline/plan/plan.h"

namespace tc {

// A "measure outK" stage for every output that encodes video (a copy is the source: nothing to
// measure); none when the spec asks for no metric.
void add_quality_stages(const JobSpec& spec, Plan& plan);

}  // namespace tc
