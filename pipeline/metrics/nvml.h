// NVIDIA's management library, loaded at run time with dlopen: no build dependency, and a machine
// without the driver simply says "not available". Only per-process decoder/encoder use is read.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace tc::metrics {

struct NvmlProcessUse {
  double decoder_percent = 0;      // NVDEC, averaged over NVML's samples of the process
  double encoder_percent = 0;      // NVENC
  double sm_percent = 0;           // CUDA cores (scale_cuda and the like)
  int samples = 0;                 // 0: NVML had nothing new for the process
  uint64_t last_timestamp_us = 0;  // pass back as `since_us` next time
};

class Nvml {
 public:
  // nullptr and `reason` ("not available: libnvidia-ml.so.1 not found") when it cannot be used.
  static std::shared_ptr<Nvml> load(const std::string& library, std::string& reason);
  // One instance per process (nvmlInit is process-wide), loaded on first use.
  static std::shared_ptr<Nvml> shared(std::string& reason);
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  // The samples NVML took of `pid` on device `index` after `since_us`; nullopt and `reason` when
  // the call fails.
  std::optional<NvmlProcessUse> process_use(unsigned index, int pid, uint64_t since_us,
                                            std::string& reason);

 private:
  struct Api;
  explicit Nvml(void* handle, std::unique_ptr<Api> api);
  void* handle_;
  std::unique_ptr<Api> api_;
};

}  // namespace tc::metrics
