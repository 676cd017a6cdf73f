#include "pipeline/core/file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "pipeline/core/fd.h"

namespace tc {
namespace {

Status read_error(const std::string& path) {
  int saved = errno;
  Status status(Code::kInput, "cannot read " + path + ": " + std::strerror(saved));
  errno = saved;
  return status;
}

}  // namespace

Result<std::string> read_file(const std::string& path) {
  ScopedFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.is_open()) return read_error(path);
  std::string text;
  char buffer[4096];
  for (;;) {
    ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n == 0) return text;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      Status status = read_error(path);
      int saved = errno;
      fd.reset();  // close() must not change the errno the caller sees
      errno = saved;
      return status;
    }
    text.append(buffer, static_cast<size_t>(n));
  }
}

std::string read_file_or_empty(const std::string& path) {
  Result<std::string> text = read_file(path);
  return text.is_ok() ? std::move(text).value() : std::string();
}

}  // namespace tc
