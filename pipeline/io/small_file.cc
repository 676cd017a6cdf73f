#include "pipeline/io/small_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "pipeline/core/fd.h"

namespace tc::io {

std::optional<std::string> read_small_file(int dir_fd, const char* name, size_t max_bytes,
                                           int* error) {
  ScopedFd file(::openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  struct stat info {};
  if (!file.is_open() || ::fstat(file.get(), &info) != 0) {
    *error = errno;
    return std::nullopt;
  }
  if (!S_ISREG(info.st_mode) || size_t(info.st_size) > max_bytes) {
    *error = S_ISREG(info.st_mode) ? EFBIG : EINVAL;
    return std::nullopt;
  }
  std::string text(size_t(info.st_size), '\0');
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::read(file.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *error = errno;
      return std::nullopt;
    }
    if (n == 0) break;  // shrunk meanwhile: what there is
    done += size_t(n);
  }
  text.resize(done);
  return text;
}

}  // namespace tc::io
