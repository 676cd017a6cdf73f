#include "pipeline/hw/device_cache.h"

#include <map>
#include <mutex>
#include <utility>

namespace tc {
namespace {

using DeviceKey = std::pair<AVHWDeviceType, std::string>;
using DeviceMap = std::map<DeviceKey, av::BufferRefPtr>;

std::string device_label(AVHWDeviceType type, const std::string& name) {
  return std::string(av_hwdevice_get_type_name(type)) + " device " +
         (name.empty() ? "(default)" : name);
}

// The device, from `opened` or created into it; the caller holds the cache's lock. QSV is
// derived from the VA-API device of the same render node (libmfx / oneVPL drive the node's VA
// display), as the ffmpeg CLI's `-init_hw_device vaapi=va:NODE -init_hw_device qsv@va` does:
// hwcontext_qsv reads its own device string as an implementation name, not as a node.
Result<AVBufferRef*> open_locked(AVHWDeviceType type, const std::string& name, DeviceMap& opened) {
  DeviceKey key(type, name);
  if (auto found = opened.find(key); found != opened.end()) return found->second.get();
  AVBufferRef* device = nullptr;
  int err = 0;
  if (type == AV_HWDEVICE_TYPE_QSV) {
    TC_ASSIGN_OR_RETURN(AVBufferRef * vaapi, open_locked(AV_HWDEVICE_TYPE_VAAPI, name, opened));
    err = av_hwdevice_ctx_create_derived(&device, type, vaapi, 0);
  } else {
    err = av_hwdevice_ctx_create(&device, type, name.empty() ? nullptr : name.c_str(), nullptr, 0);
  }
  if (err < 0) return av_status(err, Code::kDevice, "opening " + device_label(type, name));
  opened.emplace(key, av::BufferRefPtr(device));
  return device;
}

}  // namespace

Result<av::BufferRefPtr> open_hw_device(AVHWDeviceType type, const std::string& name) {
  static std::mutex mutex;
  // Never destroyed: tearing a CUDA or Vulkan context down from a static destructor races the
  // driver's own exit handlers. The process's exit frees it.
  static auto* opened = new DeviceMap();
  std::lock_guard lock(mutex);
  TC_ASSIGN_OR_RETURN(AVBufferRef * device, open_locked(type, name, *opened));
  return av::ref(device);
}

}  // namespace tc
