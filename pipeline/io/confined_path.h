// Opening paths without leaving the media roots. A path checked at CreateJob can be swapped for a
// symlink while the job waits, so checking is not enough: every open is made relative to a
// directory fd of a root, and the kernel refuses symlinks and ".." on the way (openat2 with
// RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, or a component-by-component O_NOFOLLOW walk where the
// kernel or a seccomp filter lacks openat2). Nothing is ever opened by its full name.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/core/fd.h"
#include "pipeline/core/status.h"

namespace tc::io {

enum class Resolver {
  kAuto,  // openat2 where the kernel has it, the walk otherwise
  kWalk,  // the walk only (tests check it on kernels that have openat2)
};

// Opens `relative` below the directory `root_fd`: never through a symlink, never above the root
// (".." is refused outright). O_CLOEXEC is added. As open(2): an invalid fd and errno on failure
// (ELOOP for a symlink on the way, EXDEV for a path leading out).
ScopedFd open_beneath(int root_fd, std::string_view relative, int flags,
                      Resolver resolver = Resolver::kAuto);

// A directory opened below a root, and the name of a file in it (the output's temp file and
// its rename both happen in this one directory).
struct DirEntry {
  ScopedFd dir;
  std::string dir_path;  // for messages
  std::string name;
};

class Roots {
 public:
  // The daemon's media roots (absolute, canonical): nothing resolves through a symlink or above
  // a root. kInvalidArgument names media_root when one cannot be opened.
  static Result<Roots> open_media_roots(const std::vector<std::string>& paths);
  // `transcode run`: the caller's own permissions, "/" (and the working directory for relative
  // paths) as the root. The caller's symlinks are followed (nobody swaps a path between a check
  // and the open: there is no check), but temp files and nested opens obey the same rules.
  static Result<Roots> open_caller();

  // Opens the file at `path` read-only. Errors are kInput and name the path:
  // outside every root, a symlink on the way, missing, a directory, empty.
  Result<ScopedFd> open_input(const std::string& path) const;
  // Opens the directory holding `path` (an output file), checking it is a directory and that
  // `path` itself is not one. Errors are kOutput and name the path.
  Result<DirEntry> open_output_dir(const std::string& path) const;
  // The same for an output that is a directory (a package): `path` may be one already.
  Result<DirEntry> open_output_parent(const std::string& path) const;

  bool confined() const { return confined_; }

 private:
  struct Root {
    std::string path;  // lexically normal, no trailing slash ("/" stays "/")
    ScopedFd fd;       // O_PATH | O_DIRECTORY
  };
  struct Located {
    const Root* root = nullptr;
    std::string relative;  // "." for the root itself
  };
  // The root holding `path` and the rest, lexically (realpath would follow links); the
  // innermost root when they nest. nullopt when no root holds it.
  std::optional<Located> locate(const std::string& path) const;
  // open(2) of a located path: confined below its root, or (the caller's root) as given.
  ScopedFd open_located(const Located& where, int flags) const;

  std::vector<Root> roots_;
  bool confined_ = true;
};

// "permission denied: a symbolic link on the way" and the like, for an errno from open_beneath.
std::string open_error_text(int error, bool confined);

}  // namespace tc::io
