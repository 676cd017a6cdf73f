#include "service/daemon/jobs/interrupted_publish.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include <cerrno>
#include <cstring>

#include "pipeline/core/fd.h"
#include "pipeline/io/confined_path.h"
#include "pipeline/io/temp_file.h"
#include "pipeline/spec/thumbnail_spec.h"

namespace tc::daemon {
namespace {

// One file the attempt published or was publishing: `name` in the opened directory.
struct Published {
  io::DirEntry dir;
  std::string name;
};

enum class Found { kPartial, kInPlace, kNeither };

bool regular_file(int dir, const std::string& name) {
  struct stat info {};
  return ::fstatat(dir, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(info.st_mode);
}

bool marked_by(int dir, const std::string& name, int attempt) {
  ScopedFd file(::openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!file.is_open()) return false;
  char value[16];
  ssize_t size = ::fgetxattr(file.get(), io::kAttemptAttribute, value, sizeof value);
  return size > 0 && std::string(value, static_cast<size_t>(size)) == std::to_string(attempt);
}

Found look(const Published& file, int attempt) {
  int dir = file.dir.dir.get();
  if (regular_file(dir, io::partial_name(file.name, attempt))) return Found::kPartial;
  if (regular_file(dir, file.name) && marked_by(dir, file.name, attempt)) return Found::kInPlace;
  return Found::kNeither;
}

// The files the spec publishes: each output, then the thumbnails beside the first (its index,
// and sheets numbered from 1 until one is neither pending nor in place). False when a
// directory cannot be opened.
bool files_of(const JobSpec& spec, int attempt, const io::Roots& roots,
              std::vector<Published>& files) {
  for (const OutputSpec& output : spec.outputs) {
    Result<io::DirEntry> dir = roots.open_output_dir(output.path);
    if (!dir.is_ok()) return false;
    std::string name = dir->name;
    files.push_back({std::move(*dir), std::move(name)});
  }
  if (!spec.thumbnails.on || spec.outputs.empty()) return true;
  for (int sheet = 0;; ++sheet) {
    Result<io::DirEntry> dir = roots.open_output_dir(spec.outputs.front().path);
    if (!dir.is_ok()) return false;
    Published file{std::move(*dir),
                   sheet == 0 ? std::string(kThumbnailIndex) : sheet_file_name(sheet)};
    if (sheet > 0 && look(file, attempt) == Found::kNeither) return true;
    files.push_back(std::move(file));
  }
}

// Renames a pending output into place; one renamed meanwhile (another node finishing the same
// publish) counts as in place.
bool rename_into_place(const Published& file, int attempt) {
  int dir = file.dir.dir.get();
  std::string partial = io::partial_name(file.name, attempt);
  if (::renameat(dir, partial.c_str(), dir, file.name.c_str()) == 0) {
    spdlog::info("finished the publish of {}/{} (attempt {})", file.dir.dir_path, file.name,
                 attempt);
    return true;
  }
  int error = errno;
  if (look(file, attempt) == Found::kInPlace) return true;
  spdlog::warn("cannot rename {}/{} into place: {}", file.dir.dir_path, partial,
               std::strerror(error));
  return false;
}

}  // namespace

InterruptedPublish finish_interrupted_publish(const JobSpec& spec, int attempt,
                                              const std::vector<std::string>& media_roots) {
  if (spec.package.on() || attempt < 1) return InterruptedPublish::kRedo;
  Result<io::Roots> roots = io::Roots::open_media_roots(media_roots);
  std::vector<Published> files;
  if (!roots.is_ok() || !files_of(spec, attempt, *roots, files)) return InterruptedPublish::kRedo;
  std::vector<const Published*> pending;
  for (const Published& file : files) {
    Found found = look(file, attempt);
    if (found == Found::kNeither) return InterruptedPublish::kRedo;
    if (found == Found::kPartial) pending.push_back(&file);
  }
  for (const Published* file : pending)
    if (!rename_into_place(*file, attempt)) return InterruptedPublish::kRedo;
  return InterruptedPublish::kFinished;
}

}  // namespace tc::daemon
