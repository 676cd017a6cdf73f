#include "service/daemon/jobs/partial_outputs.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "pipeline/io/confined_path.h"
#include "pipeline/io/temp_file.h"
#include "pipeline/package/package_dir.h"
#include "pipeline/spec/thumbnail_spec.h"

namespace tc::daemon {
namespace {

// Unlinks the temp file of `name` in `dir`; false when there was none.
bool remove_partial(const io::DirEntry& dir, const std::string& name, int attempt) {
  std::string partial = io::partial_name(name, attempt);
  if (::unlinkat(dir.dir.get(), partial.c_str(), 0) == 0) {
    spdlog::info("removed partial output {}/{}", dir.dir_path, partial);
    return true;
  }
  if (errno != ENOENT)
    spdlog::warn("cannot remove partial output {}/{}: {}", dir.dir_path, partial,
                 std::strerror(errno));
  return false;
}

}  // namespace

void remove_partial_outputs(const JobSpec& spec, int attempt,
                            const std::vector<std::string>& media_roots) {
  // Through the roots' directory fds, as the worker wrote them: an output directory swapped for
  // a symlink since then cannot point the unlink elsewhere.
  Result<io::Roots> roots = io::Roots::open_media_roots(media_roots);
  if (!roots.is_ok()) {
    spdlog::warn("cannot look for partial outputs: {}", roots.status().message());
    return;
  }
  if (spec.package.on()) {  // a package's partial directory, with everything in it
    Result<io::DirEntry> dir = roots->open_output_parent(spec.package.dir);
    if (dir.is_ok() &&
        package::remove_tree(dir->dir.get(), io::partial_name(dir->name, attempt)) != 0)
      spdlog::warn("cannot remove the partial package of {}", spec.package.dir);
    return;
  }
  for (const OutputSpec& output : spec.outputs) {
    Result<io::DirEntry> dir = roots->open_output_dir(output.path);
    if (!dir.is_ok()) continue;  // no directory, or not one we may touch: nothing of ours there
    remove_partial(*dir, dir->name, attempt);
  }
  // Thumbnails beside the outputs: the index, and sheets numbered from 1 until one is missing.
  if (!spec.thumbnails.on || spec.outputs.empty()) return;
  Result<io::DirEntry> dir = roots->open_output_dir(spec.outputs.front().path);
  if (!dir.is_ok()) return;
  remove_partial(*dir, std::string(kThumbnailIndex), attempt);
  for (int sheet = 1; remove_partial(*dir, sheet_file_name(sheet), attempt); ++sheet) {
  }
}

Status remove_ended_partials(JobQueue& queue, const std::vector<std::string>& media_roots) {
  for (JobState state : {JobState::kFailed, JobState::kCancelled}) {
    int64_t before = 0;  // newest first, a page at a time
    while (true) {
      TC_ASSIGN_OR_RETURN(std::vector<JobRecord> jobs, queue.list(state, before, 500));
      if (jobs.empty()) break;
      for (const JobRecord& job : jobs)
        if (job.attempt > 0) remove_partial_outputs(job.spec, job.attempt, media_roots);
      before = jobs.back().seq;
    }
  }
  return {};
}

}  // namespace tc::daemon
