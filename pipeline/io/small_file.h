// Reading a small file this program wrote earlier (a package's marker, a thumbnail index) from a
// directory fd, where someone else may have put anything at the name: it is opened
// O_NOFOLLOW | O_NONBLOCK (a symlink is never followed, a FIFO never waited on) and read only
// when it is a regular file of at most `max_bytes`.
#pragma once

#include <optional>
#include <string>

namespace tc::io {

// The file's bytes; nullopt with `*error` set: ENOENT (nothing there), ELOOP (a symlink),
// EINVAL (not a regular file), EFBIG (larger than `max_bytes`) or the failing call's errno.
std::optional<std::string> read_small_file(int dir_fd, const char* name, size_t max_bytes,
                                           int* error);

}  // namespace tc::io
