// Reading a whole file: the one helper every piece uses (configs, job files, TLS files, /proc).
#pragma once

#include <string>

#include "pipeline/core/status.h"

namespace tc {

// The file's bytes. On failure the Status (kInput) says "cannot read PATH: <strerror>", and errno
// stays as the failing call left it, for callers that treat some errors (ENOENT) as expected.
Result<std::string> read_file(const std::string& path);

// The file's bytes, or "" when it cannot be read: for files checked readable earlier (TLS files
// at start-up), where one gone since then reads as empty and its consumer refuses it.
std::string read_file_or_empty(const std::string& path);

}  // namespace tc
