// For targets whose code under test reads a path: the input's bytes written to that file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace tc::fuzz {

// Replaces the file's contents; aborts (a harness failure, not a finding) when it cannot.
inline void write_bytes(const std::string& path, const uint8_t* data, size_t size) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, file) != size) std::abort();
  if (std::fclose(file) != 0) std::abort();
}

}  // namespace tc::fuzz
