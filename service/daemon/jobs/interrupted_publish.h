// A publish cut off: an attempt passed its gate (its row says AttemptGate::kPublishing: the
// publish intent, whose outputs are the spec's), then its node died before the job's end was
// recorded. The executor asks the gate only once every output is complete and none is renamed
// yet, so such a publish is finished where the orphan is found instead of the job running
// again (which would publish its outputs a second time, or fail the job on its last attempt
// with its outputs in place): each output is either still at the attempt's temp name (renamed
// into place now) or in place carrying the attempt's mark (io::kAttemptAttribute). Anything
// else (an output missing, a file at the name that another run made, a package directory,
// whose publish replaces a whole tree) and the publish is redone: the job is queued again.
// Never replaces a file the product did not make: only the attempt's own temp files move.
#pragma once

#include <string>
#include <vector>

#include "pipeline/spec/job_spec.h"

namespace tc::daemon {

enum class InterruptedPublish {
  kFinished,  // every output of the attempt is in place: the job SUCCEEDED
  kRedo,      // run the job again
};

InterruptedPublish finish_interrupted_publish(const JobSpec& spec, int attempt,
                                              const std::vector<std::string>& media_roots);

}  // namespace tc::daemon
