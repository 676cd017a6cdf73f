#include "pipeline/hw/device_cache.h"

#include <map>
#include <mutex>
#include <utility>

namespace tc {

Result<av::BufferRefPtr> open_hw_device(AVHWDeviceType type, const std::string& name) {
  static std::mutex mutex;
  // Never destroyed: tearing a CUDA or Vulkan context down from a static destructor races the
  // driver's own exit handlers. The process's exit frees it.
  static auto* opened = new std::map<std::pair<AVHWDeviceType, std::string>, av::BufferRefPtr>();
  std::lock_guard lock(mutex);
  auto key = std::make_pair(type, name);
  if (auto found = opened->find(key); found != opened->end()) return av::ref(found->second.get());
  AVBufferRef* device = nullptr;
  if (int err =
          av_hwdevice_ctx_create(&device, type, name.empty() ? nullptr : name.c_str(), nullptr, 0);
      err < 0)
    return av_status(err, Code::kDevice,
                     std::string("opening ") + av_hwdevice_get_type_name(type) + " device " +
                         (name.empty() ? "(default)" : name));
  opened->emplace(key, av::BufferRefPtr(device));
  return av::ref(device);
}

}  // namespace tc
