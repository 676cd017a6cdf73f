#include "service/daemon/worker/child_environment.h"

#include <array>
#include <string_view>

namespace tc::daemon {
namespace {

// The process basics, and the test hook that tests set on the daemon (worker_main.h).
constexpr std::array<std::string_view, 10> kNames = {
    "PATH",    "HOME",          "TMPDIR",        "TZ", "LANG", "LANGUAGE", "LD_LIBRARY_PATH",
    "SVT_LOG", "TC_TEST_FAULT", "XDG_CACHE_HOME"};

// Locale, the VA-API, Vulkan, Mesa, Intel, NVIDIA and oneVPL drivers' settings, the GPU kernel
// caches, and the sanitizers' runtime options in their builds.
constexpr std::array<std::string_view, 16> kPrefixes = {
    "LC_",   "LIBVA_",  "VK_",     "MESA_", "INTEL_", "NVIDIA_", "__GL_",  "__NV_",
    "CUDA_", "ONEVPL_", "LIBVPL_", "DRI_",  "ASAN_",  "LSAN_",   "UBSAN_", "TSAN_"};

}  // namespace

bool passed_to_workers(const std::string& name) {
  for (std::string_view exact : kNames)
    if (name == exact) return true;
  for (std::string_view prefix : kPrefixes)
    if (std::string_view(name).starts_with(prefix)) return true;
  return false;
}

std::vector<std::string> child_environment(char* const* environment) {
  std::vector<std::string> kept;
  for (char* const* entry = environment; entry && *entry; ++entry) {
    std::string_view text(*entry);
    size_t equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    if (passed_to_workers(std::string(text.substr(0, equals)))) kept.emplace_back(text);
  }
  return kept;
}

}  // namespace tc::daemon
