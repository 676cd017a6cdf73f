// What makes a directory a package this product wrote, so that publishing replaces nothing else.
// Every package carries `.transcoded-package.json` (format "transcode-package", version 1, and
// the relative path of every file the package holds). Publishing over an existing directory is
// allowed only where that directory is provably an earlier package of ours:
//   - a real directory (not a symlink), on the same file system as its parent (st_dev): a mount
//     point is never replaced;
//   - its marker is a regular file opened O_NOFOLLOW under the directory's own fd, at most
//     kMarkerMaxBytes, valid JSON of this format;
//   - every entry below it is one the marker lists (or a directory on the way to one), and no
//     file system is mounted anywhere below it.
// The last rule is what keeps an input, the input's folder or any ancestor of it, a media root,
// the daemon's state directory or a user's library safe: each holds a file we never listed (the
// input itself, jobs.sqlite3, the user's files), so it is refused even if someone copies a marker
// into it. Anything refused is kOutput naming the directory and why.
#pragma once

#include <string>
#include <vector>

#include "pipeline/core/status.h"

namespace tc::package {

inline constexpr const char* kMarkerName = ".transcoded-package.json";
// An empty file in a partial package directory from the moment it is made: a stale partial
// directory (a crashed run's) is removed only when it holds one, never a directory of someone
// else's that happens to have the name. Removed just before the package is published.
inline constexpr const char* kPartialMarkerName = ".transcoded-partial";
inline constexpr size_t kMarkerMaxBytes = 1 << 20;

// The marker's text for a package holding `files` (relative paths, '/'-separated).
std::string marker_text(const std::vector<std::string>& files);
// The files of the package in `dir_fd` (relative paths of its regular files, the marker not
// among them), sorted; kOutput naming `shown` where it holds something other than directories
// and regular files, or crosses a file system.
Result<std::vector<std::string>> list_package_files(int dir_fd, const std::string& shown);
// Whether the entry `name` in `parent_fd` may be replaced by a new package: ok when there is
// nothing there or an earlier package of ours (the rules above); the files its marker lists come
// back in `listed`. A refusal is kOutput: "DIR: not replaced: <why>".
Status check_replaceable(int parent_fd, const std::string& name, const std::string& shown,
                         std::vector<std::string>* listed = nullptr);
// Whether `name` in `parent_fd` is the root of a mount (or cannot be told apart from one).
bool is_mount_point(int parent_fd, const char* name);
// Whether `name` in `parent_fd` is a partial package directory this program made: a directory,
// not a mount point, holding a regular kPartialMarkerName.
bool is_our_partial(int parent_fd, const std::string& name);
// Removes an earlier package (now at `name` in `parent_fd`): only the files `listed`, the
// directories that held them, its marker and then the directory itself. errno-style: 0 or the
// first error (ENOTEMPTY where something else appeared in it meanwhile: that is left alone).
int remove_listed(int parent_fd, const std::string& name, const std::vector<std::string>& listed);

}  // namespace tc::package
