#include "pipeline/io/temp_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern "C" {
#include <libavutil/log.h>
}

namespace tc::io {
namespace {

constexpr int kCreate = O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;

Status output_error(const std::string& path, const std::string& problem) {
  return {Code::kOutput, "cannot write " + path + ": " + problem};
}

// EEXIST: a stale temp file of a crashed run is removed (unlinking a name never touches
// another file, even a hard link's); anything but a regular file is an attack or a mistake.
Status clear_stale(int dir, const std::string& temp_name, const std::string& output_path) {
  struct stat info {};
  if (::fstatat(dir, temp_name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) return Status::ok();
  if (!S_ISREG(info.st_mode))
    return output_error(output_path, "permission denied: " + temp_name +
                                         " (its temporary name) is a " +
                                         (S_ISLNK(info.st_mode) ? "symbolic link" : "non-file") +
                                         "; refusing to write through it");
  if (::unlinkat(dir, temp_name.c_str(), 0) != 0 && errno != ENOENT)
    return output_error(output_path,
                        "cannot remove the stale " + temp_name + ": " + std::strerror(errno));
  return Status::ok();
}

std::string joined(const std::string& dir, const std::string& name) {
  return dir == "/" ? "/" + name : dir == "." ? name : dir + "/" + name;
}

}  // namespace

std::string partial_name(const std::string& name, int attempt) {
  return "." + name + (attempt > 0 ? ".a" + std::to_string(attempt) : "") + ".partial";
}

TempFile::TempFile(DirEntry output, std::string output_path, std::string temp_name, ScopedFd file)
    : output_(std::move(output)),
      output_path_(std::move(output_path)),
      temp_name_(std::move(temp_name)),
      temp_path_(joined(output_.dir_path, temp_name_)),
      file_(std::move(file)) {}

TempFile::TempFile(TempFile&& other) noexcept
    : output_(std::move(other.output_)),
      output_path_(std::move(other.output_path_)),
      temp_name_(std::move(other.temp_name_)),
      temp_path_(std::move(other.temp_path_)),
      file_(std::move(other.file_)),
      pending_(std::exchange(other.pending_, false)) {}

Result<TempFile> TempFile::create(DirEntry output, const std::string& output_path, int attempt) {
  std::string temp_name = partial_name(output.name, attempt);
  int dir = output.dir.get();
  ScopedFd file(::openat(dir, temp_name.c_str(), kCreate, 0666));
  if (!file.is_open() && errno == EEXIST) {
    TC_RETURN_IF_ERROR(clear_stale(dir, temp_name, output_path));
    file.reset(::openat(dir, temp_name.c_str(), kCreate, 0666));
  }
  if (!file.is_open()) {
    int error = errno;
    if (error == EACCES || error == EROFS)
      return output_error(output_path, "directory " + output.dir_path + " is not writable");
    return output_error(output_path, std::strerror(error));
  }
  if (attempt > 0) {  // best effort: kAttemptAttribute
    std::string mark = std::to_string(attempt);
    (void)::fsetxattr(file.get(), kAttemptAttribute, mark.data(), mark.size(), 0);
  }
  return TempFile(std::move(output), output_path, std::move(temp_name), std::move(file));
}

Status TempFile::publish() {
  int dir = output_.dir.get();
  if (::renameat(dir, temp_name_.c_str(), dir, output_.name.c_str()) != 0)
    return output_error(output_path_, std::strerror(errno));
  pending_ = false;
  return Status::ok();
}

TempFile::~TempFile() {
  if (!pending_) return;
  if (::unlinkat(output_.dir.get(), temp_name_.c_str(), 0) != 0 && errno != ENOENT)
    av_log(nullptr, AV_LOG_ERROR, "transcode: could not remove the partial output %s: %s\n",
           temp_path_.c_str(), std::strerror(errno));
}

}  // namespace tc::io
