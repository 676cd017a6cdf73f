// A package under construction: the hidden `.NAME.partial` directory beside the package's
// directory, made with mkdirat in the already-opened parent (below the roots), every file in it
// created O_CREAT | O_EXCL | O_NOFOLLOW relative to directory fds we opened, and the whole
// directory renamed into place with renameat only when it is complete. Removed, with everything
// in it, unless published: a failed or cancelled job leaves nothing (the promise files make).
// Attempt N of a daemon's job names it `.NAME.aN.partial` (io::partial_name).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "pipeline/core/fd.h"
#include "pipeline/core/status.h"
#include "pipeline/io/confined_path.h"

namespace tc::package {

class PackageDir {
 public:
  static Result<std::unique_ptr<PackageDir>> create(const io::Roots& roots, const std::string& dir,
                                                    int attempt);
  PackageDir(const PackageDir&) = delete;
  PackageDir& operator=(const PackageDir&) = delete;
  ~PackageDir();

  // A subdirectory of the package (a rendition's); the fd stays the PackageDir's.
  Result<int> make_subdir(const std::string& name);
  // A new file in `dir_fd` (the package's or a subdirectory's), never an existing one.
  Result<ScopedFd> create_file(int dir_fd, const std::string& name, const std::string& shown);
  // Writes a whole file at the package's top (a manifest).
  Status write_file(const std::string& name, const std::string& text);
  // Writes the marker (package_marker.h) and renames the partial directory to the package's
  // name, replacing only an earlier package of ours there (kOutput naming it otherwise).
  Status publish();
  int fd() const { return partial_.get(); }
  const std::string& path() const { return path_; }

 private:
  PackageDir(io::DirEntry parent, std::string path, std::string partial_name, ScopedFd partial)
      : parent_(std::move(parent)),
        path_(std::move(path)),
        partial_name_(std::move(partial_name)),
        partial_(std::move(partial)) {}
  io::DirEntry parent_;       // the directory the package is published in, and its name there
  std::string path_;          // the package's path, for messages
  std::string partial_name_;  // the partial directory's name in parent_
  ScopedFd partial_;          // the partial directory
  std::vector<ScopedFd> subdirs_;
  bool pending_ = true;
};

// Removes the directory `name` in `parent_fd` and everything below it, never following a
// symlink (one is removed, not entered). errno-style: 0 or the first error.
int remove_tree(int parent_fd, const std::string& name);

}  // namespace tc::package
