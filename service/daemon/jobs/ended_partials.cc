// The temp files of jobs that ended failed or cancelled. Their worker removes them as it ends,
// and the job thread once more (remove_partial_outputs); one neither could remove (its folder
// read-only to them then, or the unlink failed) would stay for good, looking like a job's
// leftovers. At start the daemon, with the access it has then, tries again for every failed and
// cancelled job it still keeps; each one it cannot remove is logged with its path and why.
#include "service/daemon/jobs/job_manager.h"

namespace tc::daemon {

Status JobManager::remove_ended_partials() {
  for (JobState state : {JobState::kFailed, JobState::kCancelled}) {
    int64_t before = 0;  // newest first, a page at a time
    while (true) {
      TC_ASSIGN_OR_RETURN(std::vector<JobRecord> jobs, store_.jobs().list(state, before, 500));
      if (jobs.empty()) break;
      for (const JobRecord& job : jobs)
        if (job.attempt > 0) remove_partial_outputs(job.spec, job.attempt, options_.policy.roots);
      before = jobs.back().seq;
    }
  }
  return {};
}

}  // namespace tc::daemon
