// Fuzz target: the daemon's YAML configuration (--config FILE) through the loader and its
// checks. The loader reads a path, so each input is written to one temporary file first.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "service/daemon/config.h"

namespace {

// One file for the whole run, rewritten per input; removed at exit.
const std::string& config_path() {
  static const std::string path = [] {
    const char* dir = std::getenv("TMPDIR");
    std::string name = std::string(dir && *dir ? dir : "/tmp") + "/tc-config-fuzz-XXXXXX";
    int fd = ::mkstemp(name.data());
    if (fd < 0) std::abort();
    ::close(fd);
    std::atexit([] { std::remove(config_path().c_str()); });
    return name;
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = config_path();
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, file) != size) std::abort();
  std::fclose(file);
  bool help = false;
  tc::Result<tc::daemon::DaemonConfig> config = tc::daemon::load_config({"--config", path}, help);
  if (config.is_ok()) (void)tc::daemon::validate_config(*config);
  return 0;
}
