#include "pipeline/package/package_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern "C" {
#include <libavutil/log.h>
}

#include "pipeline/io/temp_file.h"
#include "pipeline/package/package_marker.h"

namespace tc::package {
namespace {

constexpr int kCreateFile = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
constexpr int kOpenDir = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

Status output_error(const std::string& path, const std::string& problem) {
  return {Code::kOutput, path + ": " + problem};
}

std::string without_trailing_slashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

// Makes `name` in `parent` a fresh directory, marked as ours (kPartialMarkerName): a stale one
// a crashed run left (marked so) is removed first; anything else there - a symlink, a file, a
// directory we did not make, a mount point - is refused and left alone.
Result<ScopedFd> fresh_directory(int parent, const std::string& name, const std::string& shown) {
  if (::mkdirat(parent, name.c_str(), 0777) != 0 && errno == EEXIST) {
    if (!is_our_partial(parent, name))
      return output_error(shown, "not replaced: " + name +
                                     " is in the way, and it is not a partial package this "
                                     "program made");
    if (int error = remove_tree(parent, name); error != 0)
      return output_error(shown,
                          std::string("removing a stale partial package: ") + std::strerror(error));
    ::mkdirat(parent, name.c_str(), 0777);
  }
  ScopedFd dir(::openat(parent, name.c_str(), kOpenDir));
  if (!dir.is_open()) return output_error(shown, std::strerror(errno));
  ScopedFd mark(::openat(dir.get(), kPartialMarkerName, kCreateFile, 0666));
  if (!mark.is_open()) return output_error(shown, std::strerror(errno));
  return dir;
}

}  // namespace

int remove_tree(int parent_fd, const std::string& name) {
  int fd = ::openat(parent_fd, name.c_str(), kOpenDir);
  if (fd < 0) {
    if (errno == ENOENT) return 0;
    // Not a directory (or a symlink): remove the entry itself.
    return ::unlinkat(parent_fd, name.c_str(), 0) == 0 || errno == ENOENT ? 0 : errno;
  }
  DIR* dir = ::fdopendir(fd);
  if (!dir) {
    int error = errno;
    ::close(fd);
    return error;
  }
  int first_error = 0;
  while (dirent* entry = ::readdir(dir)) {
    std::string child = entry->d_name;
    if (child == "." || child == "..") continue;
    if (entry->d_type == DT_DIR && is_mount_point(::dirfd(dir), child.c_str())) {
      if (!first_error) first_error = EBUSY;  // another file system: never entered
      continue;
    }
    int error = entry->d_type == DT_DIR                           ? remove_tree(::dirfd(dir), child)
                : ::unlinkat(::dirfd(dir), child.c_str(), 0) == 0 ? 0
                                                                  : errno;
    if (error && !first_error) first_error = error;
  }
  ::closedir(dir);
  if (::unlinkat(parent_fd, name.c_str(), AT_REMOVEDIR) != 0 && !first_error) first_error = errno;
  return first_error;
}

Result<std::unique_ptr<PackageDir>> PackageDir::create(const io::Roots& roots,
                                                       const std::string& dir, int attempt) {
  std::string path = without_trailing_slashes(dir);
  TC_ASSIGN_OR_RETURN(io::DirEntry parent, roots.open_output_parent(path));
  // Refused before any work where the directory is not ours to replace; publish() checks again.
  TC_RETURN_IF_ERROR(check_replaceable(parent.dir.get(), parent.name, path));
  std::string partial = io::partial_name(parent.name, attempt);
  TC_ASSIGN_OR_RETURN(ScopedFd partial_fd, fresh_directory(parent.dir.get(), partial, path));
  return std::unique_ptr<PackageDir>(new PackageDir(std::move(parent), std::move(path),
                                                    std::move(partial), std::move(partial_fd)));
}

PackageDir::~PackageDir() {
  if (!pending_) return;
  subdirs_.clear();
  partial_.reset();
  if (int error = remove_tree(parent_.dir.get(), partial_name_); error != 0)
    av_log(nullptr, AV_LOG_ERROR, "transcode: could not remove the partial package of %s: %s\n",
           path_.c_str(), std::strerror(error));
}

Result<int> PackageDir::make_subdir(const std::string& name) {
  if (::mkdirat(partial_.get(), name.c_str(), 0777) != 0)
    return output_error(path_ + "/" + name, std::strerror(errno));
  ScopedFd dir(::openat(partial_.get(), name.c_str(), kOpenDir));
  if (!dir.is_open()) return output_error(path_ + "/" + name, std::strerror(errno));
  subdirs_.push_back(std::move(dir));
  return subdirs_.back().get();
}

Result<ScopedFd> PackageDir::create_file(int dir_fd, const std::string& name,
                                         const std::string& shown) {
  ScopedFd file(::openat(dir_fd, name.c_str(), kCreateFile, 0666));
  if (!file.is_open()) return output_error(path_ + "/" + shown, std::strerror(errno));
  return file;
}

Status PackageDir::write_file(const std::string& name, const std::string& text) {
  TC_ASSIGN_OR_RETURN(ScopedFd file, create_file(partial_.get(), name, name));
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(file.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return output_error(path_ + "/" + name, std::strerror(errno));
    done += size_t(n);
  }
  return Status::ok();
}

// The marker goes in last, listing every file the partial directory holds. The rename never
// replaces anything (RENAME_NOREPLACE); where something is there, it is exchanged only when
// check_replaceable says it is an earlier package of ours, and then only the files its marker
// lists are removed, never the whole tree: that is the safer of the two, since a file someone
// put there in between (or a mount made) is left alone and the removal fails, rather than gone.
Status PackageDir::publish() {
  if (::unlinkat(partial_.get(), kPartialMarkerName, 0) != 0)
    return output_error(path_, std::strerror(errno));
  TC_ASSIGN_OR_RETURN(std::vector<std::string> files, list_package_files(partial_.get(), path_));
  TC_RETURN_IF_ERROR(write_file(kMarkerName, marker_text(files)));
  int parent = parent_.dir.get();
  const char* partial = partial_name_.c_str();
  const char* name = parent_.name.c_str();
  if (::renameat2(parent, partial, parent, name, RENAME_NOREPLACE) == 0) {
    pending_ = false;
    return Status::ok();
  }
  if (errno != EEXIST) return output_error(path_, std::strerror(errno));
  std::vector<std::string> listed;
  TC_RETURN_IF_ERROR(check_replaceable(parent, parent_.name, path_, &listed));
  if (::renameat2(parent, partial, parent, name, RENAME_EXCHANGE) != 0)
    return output_error(path_, std::strerror(errno));
  pending_ = false;
  if (int error = remove_listed(parent, partial_name_, listed); error != 0)
    return output_error(path_, "removing the package it replaced (left at " + partial_name_ +
                                   "): " + std::strerror(error));
  return Status::ok();
}

}  // namespace tc::package
