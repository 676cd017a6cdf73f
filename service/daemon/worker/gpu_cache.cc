#include "service/daemon/worker/gpu_cache.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace tc::daemon {

namespace fs = std::filesystem;

Status make_gpu_cache(const std::string& dir) {
  std::error_code error;
  for (const GpuCacheVariable& variable : kGpuCacheVariables)
    if (fs::create_directories(fs::path(dir) / variable.folder, error); error)
      return Status(Code::kInternal, "GPU kernel cache " + dir + ": " + error.message());
  fs::permissions(dir, fs::perms::owner_all, error);
  if (error) return Status(Code::kInternal, "GPU kernel cache " + dir + ": " + error.message());
  return Status::ok();
}

void use_gpu_cache(const std::string& dir) {
  for (const GpuCacheVariable& variable : kGpuCacheVariables)
    setenv(variable.name, (fs::path(dir) / variable.folder).c_str(), 1);
}

}  // namespace tc::daemon
