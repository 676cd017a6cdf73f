#include "pipeline/metrics/nvml.h"

#include <dlfcn.h>

#include <mutex>
#include <vector>

namespace tc::metrics {
namespace {

// The few declarations of nvml.h this needs, as the NVML API documents them.
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr nvmlReturn_t kNvmlNotFound = 6;
constexpr nvmlReturn_t kNvmlInsufficientSize = 7;

struct nvmlProcessUtilizationSample_t {
  unsigned int pid;
  unsigned long long timeStamp;  // CPU timestamp in microseconds
  unsigned int smUtil;
  unsigned int memUtil;
  unsigned int encUtil;
  unsigned int decUtil;
};

using InitFn = nvmlReturn_t (*)();
using ShutdownFn = nvmlReturn_t (*)();
using HandleByIndexFn = nvmlReturn_t (*)(unsigned int, nvmlDevice_t*);
using ProcessUtilizationFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlProcessUtilizationSample_t*,
                                              unsigned int*, unsigned long long);

}  // namespace

struct Nvml::Api {
  InitFn init = nullptr;
  ShutdownFn shutdown = nullptr;
  HandleByIndexFn handle_by_index = nullptr;
  ProcessUtilizationFn process_utilization = nullptr;
};

Nvml::Nvml(void* handle, std::unique_ptr<Api> api) : handle_(handle), api_(std::move(api)) {}

Nvml::~Nvml() {
  api_->shutdown();
  dlclose(handle_);
}

std::shared_ptr<Nvml> Nvml::load(const std::string& library, std::string& reason) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    reason = "not available: " + library + " not found";
    return nullptr;
  }
  auto api = std::make_unique<Api>();
  api->init = reinterpret_cast<InitFn>(dlsym(handle, "nvmlInit_v2"));
  api->shutdown = reinterpret_cast<ShutdownFn>(dlsym(handle, "nvmlShutdown"));
  api->handle_by_index =
      reinterpret_cast<HandleByIndexFn>(dlsym(handle, "nvmlDeviceGetHandleByIndex_v2"));
  api->process_utilization =
      reinterpret_cast<ProcessUtilizationFn>(dlsym(handle, "nvmlDeviceGetProcessUtilization"));
  if (!api->init || !api->shutdown || !api->handle_by_index || !api->process_utilization) {
    reason = "not available: " + library + " lacks nvmlDeviceGetProcessUtilization";
    dlclose(handle);
    return nullptr;
  }
  if (nvmlReturn_t rc = api->init(); rc != kNvmlSuccess) {
    reason = "not available: nvmlInit_v2 failed (NVML error " + std::to_string(rc) + ")";
    dlclose(handle);
    return nullptr;
  }
  return std::shared_ptr<Nvml>(new Nvml(handle, std::move(api)));
}

std::shared_ptr<Nvml> Nvml::shared(std::string& reason) {
  static std::mutex mutex;
  static std::shared_ptr<Nvml> instance;
  static std::string load_reason;
  static bool tried = false;
  std::lock_guard lock(mutex);
  if (!tried) instance = load("libnvidia-ml.so.1", load_reason), tried = true;
  reason = load_reason;
  return instance;
}

std::optional<NvmlProcessUse> Nvml::process_use(unsigned index, int pid, uint64_t since_us,
                                                std::string& reason) {
  nvmlDevice_t device = nullptr;
  if (nvmlReturn_t rc = api_->handle_by_index(index, &device); rc != kNvmlSuccess) {
    reason = "not available: NVML has no device " + std::to_string(index) + " (error " +
             std::to_string(rc) + ")";
    return std::nullopt;
  }
  NvmlProcessUse use;
  use.last_timestamp_us = since_us;
  unsigned int count = 0;
  nvmlReturn_t rc = api_->process_utilization(device, nullptr, &count, since_us);
  if (rc == kNvmlNotFound) return use;  // no samples since `since_us`
  if (rc != kNvmlSuccess && rc != kNvmlInsufficientSize) {
    reason =
        "not available: nvmlDeviceGetProcessUtilization failed (error " + std::to_string(rc) + ")";
    return std::nullopt;
  }
  std::vector<nvmlProcessUtilizationSample_t> samples(count + 8);
  count = static_cast<unsigned int>(samples.size());
  rc = api_->process_utilization(device, samples.data(), &count, since_us);
  if (rc == kNvmlNotFound) return use;
  if (rc != kNvmlSuccess) {
    reason =
        "not available: nvmlDeviceGetProcessUtilization failed (error " + std::to_string(rc) + ")";
    return std::nullopt;
  }
  for (unsigned int i = 0; i < count && i < samples.size(); ++i) {
    const nvmlProcessUtilizationSample_t& s = samples[i];
    if (static_cast<int>(s.pid) != pid) continue;
    use.decoder_percent += s.decUtil;
    use.encoder_percent += s.encUtil;
    use.sm_percent += s.smUtil;
    use.samples += 1;
    if (s.timeStamp > use.last_timestamp_us) use.last_timestamp_us = s.timeStamp;
  }
  if (use.samples > 0) {
    use.decoder_percent /= use.samples;
    use.encoder_percent /= use.samples;
    use.sm_percent /= use.samples;
  }
  return use;
}

}  // namespace tc::metrics
