#include "pipeline/package/package_marker.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "pipeline/core/fd.h"
#include "pipeline/io/small_file.h"

#ifndef STATX_ATTR_MOUNT_ROOT
#define STATX_ATTR_MOUNT_ROOT 0x00002000
#endif

namespace tc::package {
namespace {

constexpr int kOpenDir = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
constexpr const char* kFormat = "transcode-package";
constexpr int kVersion = 1;

Status refused(const std::string& shown, const std::string& why) {
  return {Code::kOutput, shown + ": not replaced: " + why};
}

// A relative path we could have written: no leading '/', no empty, "." or ".." component.
bool is_plain_relative(const std::string& path) {
  if (path.empty() || path.front() == '/' || path.back() == '/') return false;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = std::min(path.find('/', start), path.size());
    std::string part = path.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

// Opens the directory `relative` ("a/b") below `dir_fd` one component at a time, never
// through a symlink; "" is `dir_fd` itself.
ScopedFd open_below(int dir_fd, const std::string& relative) {
  ScopedFd current(::openat(dir_fd, ".", kOpenDir));
  size_t start = 0;
  while (current.is_open() && start < relative.size()) {
    size_t end = std::min(relative.find('/', start), relative.size());
    current =
        ScopedFd(::openat(current.get(), relative.substr(start, end - start).c_str(), kOpenDir));
    start = end + 1;
  }
  return current;
}

// Walks `dir_fd` adding "prefix/name" for files and "prefix/name/" for directories.
Status walk(int dir_fd, const std::string& prefix, const std::string& shown,
            std::vector<std::string>* entries) {
  ScopedFd own(::openat(dir_fd, ".", kOpenDir));
  DIR* dir = own.is_open() ? ::fdopendir(own.get()) : nullptr;
  if (!dir) return {Code::kOutput, shown + "/" + prefix + ": " + std::strerror(errno)};
  own.release();
  std::unique_ptr<DIR, int (*)(DIR*)> closer(dir, ::closedir);
  while (dirent* entry = ::readdir(dir)) {
    std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    std::string relative = prefix + name;
    struct stat info {};
    if (::fstatat(::dirfd(dir), name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0)
      return {Code::kOutput, shown + "/" + relative + ": " + std::strerror(errno)};
    if (S_ISREG(info.st_mode)) {
      entries->push_back(relative);
    } else if (S_ISDIR(info.st_mode)) {
      if (is_mount_point(::dirfd(dir), name.c_str()))
        return refused(shown, "a file system is mounted at " + shown + "/" + relative);
      entries->push_back(relative + "/");
      ScopedFd sub(::openat(::dirfd(dir), name.c_str(), kOpenDir));
      if (!sub.is_open())
        return {Code::kOutput, shown + "/" + relative + ": " + std::strerror(errno)};
      TC_RETURN_IF_ERROR(walk(sub.get(), relative + "/", shown, entries));
    } else {
      return refused(shown, shown + "/" + relative + " is neither a file nor a directory");
    }
  }
  return Status::ok();
}

// The marker in `dir_fd`, read as the header says; the files it lists.
Result<std::vector<std::string>> read_marker(int dir_fd, const std::string& shown) {
  int error = 0;
  std::optional<std::string> text =
      io::read_small_file(dir_fd, kMarkerName, kMarkerMaxBytes, &error);
  if (!text)
    return refused(shown, error == ENOENT
                              ? std::string("it is not a package this program wrote (no ") +
                                    kMarkerName + "); remove it or choose another directory"
                              : std::string(kMarkerName) +
                                    " is not a regular file of at most "
                                    "1 MiB that can be read");
  nlohmann::json marker = nlohmann::json::parse(*text, nullptr, false);
  std::vector<std::string> files;
  bool valid = marker.is_object() && marker.value("format", "") == kFormat &&
               marker.value("version", 0) == kVersion && marker.contains("files") &&
               marker["files"].is_array();
  if (valid)
    for (const nlohmann::json& path : marker["files"]) {
      valid = valid && path.is_string() && is_plain_relative(path.get<std::string>());
      if (valid) files.push_back(path.get<std::string>());
    }
  if (!valid) return refused(shown, std::string(kMarkerName) + " is not one this program wrote");
  return files;
}

// Every directory on the way to a listed file ("a/", "a/b/"), deepest last.
std::set<std::string> directories_of(const std::vector<std::string>& files) {
  std::set<std::string> dirs;
  for (const std::string& file : files)
    for (size_t at = file.find('/'); at != std::string::npos; at = file.find('/', at + 1))
      dirs.insert(file.substr(0, at + 1));
  return dirs;
}

}  // namespace

// Whether `name` in `parent_fd` is the root of a mount: another st_dev than its parent's, or
// (a bind mount of the same file system has the same st_dev) statx's mount-root attribute.
bool is_mount_point(int parent_fd, const char* name) {
  struct statx entry {};
  struct statx parent {};
  if (::statx(parent_fd, name, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &entry) != 0 ||
      ::statx(parent_fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &parent) != 0)
    return true;  // cannot tell: treat as foreign
  if (entry.stx_dev_major != parent.stx_dev_major || entry.stx_dev_minor != parent.stx_dev_minor)
    return true;
  return (entry.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
         (entry.stx_attributes & STATX_ATTR_MOUNT_ROOT);
}

bool is_our_partial(int parent_fd, const std::string& name) {
  if (is_mount_point(parent_fd, name.c_str())) return false;
  ScopedFd dir(::openat(parent_fd, name.c_str(), kOpenDir));
  int error = 0;
  return dir.is_open() && io::read_small_file(dir.get(), kPartialMarkerName, 0, &error);
}

std::string marker_text(const std::vector<std::string>& files) {
  nlohmann::json marker = {{"format", kFormat}, {"version", kVersion}, {"files", files}};
  return marker.dump(1) + "\n";
}

Result<std::vector<std::string>> list_package_files(int dir_fd, const std::string& shown) {
  std::vector<std::string> entries;
  TC_RETURN_IF_ERROR(walk(dir_fd, "", shown, &entries));
  std::vector<std::string> files;
  for (const std::string& entry : entries)
    if (entry.back() != '/' && entry != kMarkerName) files.push_back(entry);
  std::sort(files.begin(), files.end());
  return files;
}

Status check_replaceable(int parent_fd, const std::string& name, const std::string& shown,
                         std::vector<std::string>* listed) {
  struct stat info {};
  if (::fstatat(parent_fd, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0)
    return errno == ENOENT ? Status::ok() : refused(shown, std::strerror(errno));
  if (!S_ISDIR(info.st_mode)) return refused(shown, "something other than a directory is there");
  if (is_mount_point(parent_fd, name.c_str()))
    return refused(shown, "it is a mount point (a file system is mounted there)");
  ScopedFd dir(::openat(parent_fd, name.c_str(), kOpenDir));
  if (!dir.is_open()) return refused(shown, std::strerror(errno));
  TC_ASSIGN_OR_RETURN(std::vector<std::string> files, read_marker(dir.get(), shown));
  std::vector<std::string> entries;
  TC_RETURN_IF_ERROR(walk(dir.get(), "", shown, &entries));
  std::set<std::string> allowed(files.begin(), files.end());
  std::set<std::string> dirs = directories_of(files);
  allowed.insert(dirs.begin(), dirs.end());
  allowed.insert(kMarkerName);
  for (const std::string& entry : entries)
    if (!allowed.count(entry))
      return refused(shown, "it holds " + shown + "/" + entry +
                                ", which the package there did not list (not ours to remove)");
  if (listed) *listed = std::move(files);
  return Status::ok();
}

int remove_listed(int parent_fd, const std::string& name, const std::vector<std::string>& listed) {
  ScopedFd top(::openat(parent_fd, name.c_str(), kOpenDir));
  if (!top.is_open()) return errno == ENOENT ? 0 : errno;
  int first_error = 0;
  auto note = [&first_error](bool ok) {
    if (!ok && errno != ENOENT && !first_error) first_error = errno;
  };
  for (const std::string& file : listed) {
    size_t slash = file.rfind('/');
    std::string base = slash == std::string::npos ? file : file.substr(slash + 1);
    ScopedFd dir = open_below(top.get(), slash == std::string::npos ? "" : file.substr(0, slash));
    note(dir.is_open() && ::unlinkat(dir.get(), base.c_str(), 0) == 0);
  }
  std::set<std::string> dirs = directories_of(listed);
  for (auto it = dirs.rbegin(); it != dirs.rend(); ++it) {  // "a/b/" before "a/"
    std::string path = it->substr(0, it->size() - 1);
    size_t slash = path.rfind('/');
    ScopedFd dir = open_below(top.get(), slash == std::string::npos ? "" : path.substr(0, slash));
    std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    note(dir.is_open() && ::unlinkat(dir.get(), base.c_str(), AT_REMOVEDIR) == 0);
  }
  note(::unlinkat(top.get(), kMarkerName, 0) == 0);
  note(::unlinkat(parent_fd, name.c_str(), AT_REMOVEDIR) == 0);
  return first_error;
}

}  // namespace tc::package
