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
#include "tests/fuzz/write_bytes.h"

namespace {

// One file for the whole run, rewritten per input; removed at exit.
class ConfigFile {
 public:
  ConfigFile() {
    const char* dir = std::getenv("TMPDIR");
    path_ = std::string(dir && *dir ? dir : "/tmp") + "/tc-config-fuzz-XXXXXX";
    int fd = ::mkstemp(path_.data());
    if (fd < 0) std::abort();
    ::close(fd);
  }
  ~ConfigFile() { std::remove(path_.c_str()); }
  ConfigFile(const ConfigFile&) = delete;
  ConfigFile& operator=(const ConfigFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const ConfigFile file_of_settings;
  const std::string& path = file_of_settings.path();
  tc::fuzz::write_bytes(path, data, size);
  bool help = false;
  tc::Result<tc::daemon::DaemonConfig> config = tc::daemon::load_config({"--config", path}, help);
  if (config.is_ok()) (void)tc::daemon::validate_config(*config);
  return 0;
}
