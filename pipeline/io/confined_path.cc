#include "pipeline/io/confined_path.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace tc::io {
namespace {

namespace fs = std::filesystem;

// Returns -1 with errno ENOSYS where the kernel (before 5.6) or a seccomp filter (EPERM, as
// Docker's default profile answered before it knew openat2) refuses the call itself.
int openat2_beneath(int root_fd, const std::string& relative, int flags) {
  open_how how{};
  how.flags = static_cast<uint64_t>(flags | O_CLOEXEC);
  how.mode = (flags & O_CREAT) ? 0666 : 0;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  for (;;) {
    long fd = ::syscall(SYS_openat2, root_fd, relative.c_str(), &how, sizeof how);
    if (fd >= 0) return static_cast<int>(fd);
    if (errno == EAGAIN || errno == EINTR) continue;  // a rename raced the lookup: try again
    if (errno == EPERM) errno = ENOSYS;
    return -1;
  }
}

std::vector<std::string> components(std::string_view relative) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= relative.size()) {
    size_t slash = relative.find('/', start);
    if (slash == std::string_view::npos) slash = relative.size();
    std::string_view part = relative.substr(start, slash - start);
    if (!part.empty() && part != ".") parts.emplace_back(part);
    start = slash + 1;
  }
  return parts;
}

// Directories on the way are opened O_PATH | O_NOFOLLOW and checked to be directories (O_PATH
// with O_NOFOLLOW opens a symlink itself rather than failing); the last component is opened
// with the caller's flags plus O_NOFOLLOW.
ScopedFd walk_beneath(int root_fd, std::string_view relative, int flags) {
  std::vector<std::string> parts = components(relative);
  bool leads_out = !relative.empty() && relative[0] == '/';
  for (const std::string& part : parts) leads_out = leads_out || part == "..";
  if (leads_out) {
    errno = EXDEV;
    return ScopedFd();
  }
  if (parts.empty()) parts.emplace_back(".");
  ScopedFd dir(::fcntl(root_fd, F_DUPFD_CLOEXEC, 0));
  if (!dir.is_open()) return dir;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    ScopedFd next(::openat(dir.get(), parts[i].c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (!next.is_open()) return next;
    struct stat info {};
    if (::fstat(next.get(), &info) != 0) return ScopedFd();
    if (S_ISLNK(info.st_mode)) {
      errno = ELOOP;
      return ScopedFd();
    }
    if (!S_ISDIR(info.st_mode)) {
      errno = ENOTDIR;
      return ScopedFd();
    }
    dir = std::move(next);
  }
  int last_flags = flags | O_NOFOLLOW | O_CLOEXEC;
  ScopedFd last(::openat(dir.get(), parts.back().c_str(), last_flags, 0666));
  if (!last.is_open()) {
    // O_DIRECTORY | O_NOFOLLOW on a symlink says ENOTDIR: say what it really is.
    struct stat info {};
    int error = errno;
    bool link = ::fstatat(dir.get(), parts.back().c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0 &&
                S_ISLNK(info.st_mode);
    errno = link ? ELOOP : error;
    return last;
  }
  if (flags & O_PATH) {  // an O_PATH | O_NOFOLLOW open succeeds on a symlink: refuse it here
    struct stat info {};
    if (::fstat(last.get(), &info) != 0) return ScopedFd();
    if (S_ISLNK(info.st_mode)) {
      errno = ELOOP;
      return ScopedFd();
    }
  }
  return last;
}

std::string parent_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string name_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

Status input_error(const std::string& path, const std::string& problem) {
  return {Code::kInput, path + ": " + problem};
}

Status output_error(const std::string& path, const std::string& problem) {
  return {Code::kOutput, "cannot write " + path + ": " + problem};
}

Status denied(Code code, const std::string& path) {
  std::string problem = "permission denied: outside the media roots";
  return code == Code::kInput ? input_error(path, problem) : output_error(path, problem);
}

bool is_inside(const std::string& path, const std::string& root) {
  if (root == "/") return true;
  return path == root || (path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
                          path[root.size()] == '/');
}

}  // namespace

ScopedFd open_beneath(int root_fd, std::string_view relative, int flags, Resolver resolver) {
  if (resolver == Resolver::kAuto) {
    std::string path(relative.empty() ? "." : relative);
    int fd = openat2_beneath(root_fd, path, flags);
    if (fd >= 0 || errno != ENOSYS) return ScopedFd(fd);
  }
  return walk_beneath(root_fd, relative, flags);
}

std::string open_error_text(int error, bool confined) {
  if (confined && error == ELOOP)
    return "permission denied: a symbolic link on the way (links are not followed below a media "
           "root)";
  if (confined && error == EXDEV) return "permission denied: the path leads outside its media root";
  if (error == ENOENT) return "no such file";
  return std::strerror(error);
}

Result<Roots> Roots::open_media_roots(const std::vector<std::string>& paths) {
  Roots roots;
  for (const std::string& path : paths) {
    std::string normal = fs::path(path).lexically_normal().string();
    if (normal.size() > 1 && normal.back() == '/') normal.pop_back();
    ScopedFd fd(::open(normal.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!fd.is_open() || normal.empty() || normal[0] != '/')
      return Status(Code::kInvalidArgument,
                    "media_root: '" + path + "' is not a directory: " + std::strerror(errno));
    roots.roots_.push_back({normal, std::move(fd)});
  }
  return roots;
}

Result<Roots> Roots::open_caller() {
  Roots roots;
  roots.confined_ = false;
  for (const char* path : {"/", "."}) {
    ScopedFd fd(::open(path, O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!fd.is_open())
      return Status(Code::kInput, std::string("cannot open ") + path + ": " + std::strerror(errno));
    roots.roots_.push_back({path, std::move(fd)});
  }
  return roots;
}

std::optional<Roots::Located> Roots::locate(const std::string& path) const {
  if (!confined_) {  // "/" for absolute paths, the working directory for relative ones
    bool absolute = !path.empty() && path[0] == '/';
    std::string rest = absolute ? path.substr(path.find_first_not_of('/') == std::string::npos
                                                  ? path.size()
                                                  : path.find_first_not_of('/'))
                                : path;
    return Located{&roots_[absolute ? 0 : 1], rest.empty() ? "." : rest};
  }
  if (path.empty() || path[0] != '/') return std::nullopt;
  std::string normal = fs::path(path).lexically_normal().string();
  if (normal.size() > 1 && normal.back() == '/') normal.pop_back();
  const Root* best = nullptr;
  for (const Root& root : roots_)
    if (is_inside(normal, root.path) && (!best || root.path.size() > best->path.size()))
      best = &root;
  if (!best) return std::nullopt;
  std::string rest = normal.substr(best->path == "/" ? 1 : best->path.size());
  if (!rest.empty() && rest[0] == '/') rest.erase(0, 1);
  return Located{best, rest.empty() ? "." : rest};
}

ScopedFd Roots::open_located(const Located& where, int flags) const {
  if (confined_) return open_beneath(where.root->fd.get(), where.relative, flags);
  return ScopedFd(::openat(where.root->fd.get(), where.relative.c_str(), flags | O_CLOEXEC, 0666));
}

Result<ScopedFd> Roots::open_input(const std::string& path) const {
  std::optional<Located> where = locate(path);
  if (!where) return denied(Code::kInput, path);
  // O_NONBLOCK: a FIFO planted at the name must not hang the open; cleared below.
  ScopedFd fd = open_located(*where, O_RDONLY | O_NONBLOCK);
  if (!fd.is_open()) return input_error(path, open_error_text(errno, confined_));
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) return input_error(path, std::strerror(errno));
  if (S_ISDIR(info.st_mode)) return input_error(path, "is a directory, not a media file");
  if (confined_ && !S_ISREG(info.st_mode)) return input_error(path, "is not a regular file");
  if (S_ISREG(info.st_mode) && info.st_size == 0) return input_error(path, "is empty (0 bytes)");
  ::fcntl(fd.get(), F_SETFL, ::fcntl(fd.get(), F_GETFL) & ~O_NONBLOCK);
  return fd;
}

Result<DirEntry> Roots::open_output_dir(const std::string& path) const {
  TC_ASSIGN_OR_RETURN(DirEntry entry, open_output_parent(path));
  struct stat existing {};
  if (::fstatat(entry.dir.get(), entry.name.c_str(), &existing, AT_SYMLINK_NOFOLLOW) == 0 &&
      S_ISDIR(existing.st_mode))
    return output_error(path, "it is a directory");
  return entry;
}

Result<DirEntry> Roots::open_output_parent(const std::string& path) const {
  DirEntry entry{ScopedFd(), parent_of(path), name_of(path)};
  if (entry.name.empty() || entry.name == "." || entry.name == "..")
    return output_error(path, "it is not a file name");
  std::optional<Located> where = locate(entry.dir_path);
  if (!where) return denied(Code::kOutput, path);
  entry.dir = open_located(*where, O_PATH | O_DIRECTORY);
  if (!entry.dir.is_open()) {
    int error = errno;
    if (error == ENOENT)
      return output_error(path, "directory " + entry.dir_path + " does not exist");
    if (error == ENOTDIR) return output_error(path, entry.dir_path + " is not a directory");
    return output_error(path, open_error_text(error, confined_));
  }
  if (::faccessat(entry.dir.get(), ".", W_OK, 0) != 0)
    return output_error(path, "directory " + entry.dir_path + " is not writable");
  return entry;
}

}  // namespace tc::io
