#include "pipeline/hw/devices.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>
#include <va/va.h>
#include <va/va_drm.h>
#include <xf86drm.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string_view>
#include <system_error>
#include <utility>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavfilter/avfilter.h>
#include <libavutil/hwcontext.h>
}

#include "pipeline/core/av.h"
#include "pipeline/core/fd.h"
#include "pipeline/hw/backends.h"
#include "pipeline/hw/device_cache.h"
#include "pipeline/hw/intel_profiles.h"
#include "pipeline/hw/intel_stack.h"
#include "pipeline/hw/uc_firmware.h"
#include "pipeline/hw/va_caps.h"
#include "pipeline/hw/va_profiles.h"

namespace tc {

bool HwDevice::decodes(AVCodecID codec, int bit_depth) const {
  auto found = decode.find(codec);
  return found != decode.end() && found->second >= bit_depth;
}

bool HwDevice::encodes(AVCodecID codec) const {
  auto found = encode.find(codec);
  return found != encode.end() && (found->second.full || found->second.low_power);
}

const HwDevice* HwInventory::find(BackendKind backend, const std::string& path) const {
  for (const HwDevice& device : devices) {
    if (device.backend != backend || !device.usable()) continue;
    if (path.empty() || device.path == path) return &device;
  }
  return nullptr;
}

bool is_intel_driver(const std::string& kernel_driver) {
  return kernel_driver == "i915" || kernel_driver == "xe";
}

bool is_emulated_vaapi_vendor(const std::string& vendor) {
  // As mpv's vaapi.c: VA-API on top of VDPAU (Splitted-Desktop's vdpau-va-driver) or on top of
  // NVDEC (nvidia-vaapi-driver) is not real VA-API hardware.
  for (std::string_view layer : {"VDPAU backend", "Splitted-Desktop", "NVDEC driver"}) {
    if (vendor.find(layer) != std::string::npos) return true;
  }
  return false;
}

// ---- Pure helpers of VA-API discovery (va_caps.h) ----

static_assert(va_rc::kCbr == VA_RC_CBR && va_rc::kVbr == VA_RC_VBR && va_rc::kCqp == VA_RC_CQP &&
              va_rc::kIcq == VA_RC_ICQ && va_rc::kQvbr == VA_RC_QVBR);

namespace {

struct CodecDepth {
  AVCodecID codec;
  int bit_depth;
};

// The profile's reach, narrowed by the RT formats the driver (or the table) gave for it.
VaProfileInfo reach_of(VaProfileInfo info, const VaConfigAttributes* attributes) {
  if (!attributes) return info;
  RtFormatReach reach = rt_format_reach(attributes->rt_formats);
  if (reach.bit_depth) info.bit_depth = reach.bit_depth;
  return info;
}

// An encode profile's depth: its own, narrowed (never widened) by the RT formats answered.
VaProfileInfo encode_reach_of(VaProfileInfo info, const VaConfigAttributes* attributes) {
  int reach = attributes ? rt_format_reach(attributes->rt_formats).bit_depth : 0;
  if (reach) info.bit_depth = std::min(info.bit_depth, reach);
  return info;
}

const VaConfigAttributes* attributes_of(const VaProfileEntrypoints& profile, int entrypoint) {
  auto found = profile.attributes.find(entrypoint);
  return found == profile.attributes.end() ? nullptr : &found->second;
}

void add_decode(const VaProfileInfo& info, const VaConfigAttributes* attributes, HwDevice& device) {
  DecodeProfile decode{info.va_profile, std::string(info.name), info.codec, info.bit_depth,
                       info.chroma};
  if (attributes) {
    decode.max_width = attributes->max_width;
    decode.max_height = attributes->max_height;
  }
  device.decode_profiles.push_back(std::move(decode));
  // `decode` holds what the 4:2:0 profiles reach: the planner's codec-level answer.
  if (info.chroma != 420) return;
  int& depth = device.decode[info.codec];
  depth = std::max(depth, info.bit_depth);
}

// Encode entrypoints of 4:2:0 profiles are the ones we plan with; every profile (4:4:4 too)
// widens the entrypoint's recorded depth and chroma, which the planner reads for 4:2:0 output
// only through the depth of 4:2:0 profiles.
void add_encode(const VaProfileInfo& info, int entrypoint, const VaConfigAttributes* attributes,
                HwDevice& device) {
  if (info.chroma != 420) {
    auto found = device.encode.find(info.codec);
    if (found == device.encode.end()) return;
    bool low_power = entrypoint == VAEntrypointEncSliceLP;
    int& chroma = low_power ? found->second.low_power_chroma : found->second.full_chroma;
    chroma = std::max(chroma, info.chroma);
    return;
  }
  EncodeEntrypoints& encode = device.encode[info.codec];
  bool low_power = entrypoint == VAEntrypointEncSliceLP;
  (low_power ? encode.low_power : encode.full) = true;
  int& depth = low_power ? encode.low_power_bit_depth : encode.full_bit_depth;
  depth = std::max(depth, info.bit_depth);
  int& chroma = low_power ? encode.low_power_chroma : encode.full_chroma;
  chroma = std::max(chroma, info.chroma);
  if (!attributes) return;
  (low_power ? encode.low_power_rate_control : encode.full_rate_control) |=
      attributes->rate_control;
  encode.max_width = std::max(encode.max_width, attributes->max_width);
  encode.max_height = std::max(encode.max_height, attributes->max_height);
}

void apply_entrypoint(const VaProfileInfo& profile, int entrypoint,
                      const VaConfigAttributes* attributes, HwDevice& device) {
  switch (entrypoint) {
    case VAEntrypointVLD:
      add_decode(reach_of(profile, attributes), attributes, device);
      break;
    case VAEntrypointEncSlice:
    case VAEntrypointEncSliceLP:
      add_encode(encode_reach_of(profile, attributes), entrypoint, attributes, device);
      break;
    default:
      break;
  }
}

bool has_entrypoint(const VaProfileEntrypoints& profile, int entrypoint) {
  const std::vector<int>& entrypoints = profile.entrypoints;
  return std::find(entrypoints.begin(), entrypoints.end(), entrypoint) != entrypoints.end();
}

}  // namespace

void apply_va_caps(const std::vector<VaProfileEntrypoints>& profiles, HwDevice& device) {
  for (const VaProfileEntrypoints& profile : profiles) {
    if (profile.profile == VAProfileNone) {
      if (has_entrypoint(profile, VAEntrypointVideoProc)) device.can_scale = true;
      continue;
    }
    std::optional<VaProfileInfo> info = va_profile_info(profile.profile);
    if (!info) continue;
    for (int entrypoint : profile.entrypoints)
      apply_entrypoint(*info, entrypoint, attributes_of(profile, entrypoint), device);
  }
}

bool tonemaps_hdr10(const std::vector<VAProcFilterCapHighDynamicRange>& caps) {
  return std::any_of(caps.begin(), caps.end(), [](const VAProcFilterCapHighDynamicRange& cap) {
    return cap.metadata_type == VAProcHighDynamicRangeMetadataHDR10 &&
           (cap.caps_flag & VA_TONE_MAPPING_HDR_TO_SDR) != 0;
  });
}

void gate_vdenc_bitrate_on_huc(bool huc_loaded, HwDevice& device) {
  if (huc_loaded) return;
  bool any_low_power = std::any_of(device.encode.begin(), device.encode.end(),
                                   [](const auto& entry) { return entry.second.low_power; });
  for (auto& [codec, encode] : device.encode) {
    if (encode.low_power_rate_control) encode.low_power_rate_control &= va_rc::kCqp;
    if (!any_low_power && encode.full_rate_control) encode.full_rate_control &= va_rc::kCqp;
  }
}

void apply_huc_state(const std::string& debugfs_root, int node_fd, HwDevice& device) {
  if (!is_intel_driver(device.driver)) return;
  UcReading huc =
      read_uc_firmware(UcFirmware::kHuc, debugfs_root, device.path, device.driver, node_fd);
  if (huc.state != UcState::kUnknown) device.huc_running = huc.running();
  device.huc_seen = huc.summary();
  if (device.driver == "xe") gate_vdenc_bitrate_on_huc(huc.running(), device);
}

std::string va_vendor_rejection(const std::string& vendor) {
  if (is_emulated_vaapi_vendor(vendor)) return "VA-API driver is an emulation layer: " + vendor;
  // Mesa's VA-API driver serves AMD and nouveau, not Intel: seen on an Intel node only when
  // LIBVA_DRIVER_NAME forces it, and then nothing would work.
  if (vendor.find("Mesa Gallium driver") != std::string::npos)
    return "VA-API driver is not an Intel driver: " + vendor;
  return {};
}

std::string va_init_hint(const std::string& kernel_driver, const std::string& driver_name_env) {
  if (!driver_name_env.empty() && driver_name_env != "iHD" && driver_name_env != "i965")
    return "LIBVA_DRIVER_NAME=" + driver_name_env +
           " names a driver that is not Intel's: unset it or set LIBVA_DRIVER_NAME=iHD";
  // On xe, Debian 12's libva and iHD cannot work at all: LIBVA_DRIVER_NAME would not help.
  if (std::string gap = intel_stack_gap(kernel_driver); !gap.empty()) return gap;
  // On xe (libva 2.21+ here), iHD is the only driver and only from 23.4, forced or not.
  if (kernel_driver == "xe")
    return "is intel-media-va-driver 23.4 or newer installed (xe support)? LIBVA_DRIVER_NAME=iHD "
           "selects it";
  return "is intel-media-va-driver installed? LIBVA_DRIVER_NAME=iHD selects it";
}

std::string render_node_open_error(const std::string& path, int errno_value) {
  std::string reason = "cannot open " + path + ": " + std::strerror(errno_value);
  // The usual container problem: the node is group `render`, and the process is not in it.
  if (errno_value == EACCES || errno_value == EPERM)
    reason += " (the process needs the `render` group)";
  return reason;
}

// ---- VA-API discovery: libdrm + libva ----

namespace {

struct DrmVersionDeleter {
  void operator()(drmVersionPtr version) const { drmFreeVersion(version); }
};
using DrmVersion = std::unique_ptr<drmVersion, DrmVersionDeleter>;

// A display from vaGetDisplayDRM. vaTerminate also frees a display whose vaInitialize failed
// (as libavutil's hwcontext_vaapi does), so it runs for every non-null display.
class VaDisplayHandle {
 public:
  explicit VaDisplayHandle(VADisplay display) : display_(display) {}
  VaDisplayHandle(const VaDisplayHandle&) = delete;
  VaDisplayHandle& operator=(const VaDisplayHandle&) = delete;
  ~VaDisplayHandle() {
    if (display_) vaTerminate(display_);
  }
  VADisplay get() const { return display_; }

 private:
  VADisplay display_;
};

void ignore_va_message(void* /*user_context*/, const char* /*message*/) {}

// libva prints "libva info: ..." lines to stderr by default; discovery reports through data.
void quiet_libva(VADisplay display) {
  vaSetErrorCallback(display, ignore_va_message, nullptr);
  vaSetInfoCallback(display, ignore_va_message, nullptr);
}

// Render nodes in numeric order (renderD129 before renderD1000): same prefix, so by length first.
bool render_node_before(const std::string& a, const std::string& b) {
  return a.size() != b.size() ? a.size() < b.size() : a < b;
}

std::vector<std::string> list_render_nodes(const std::string& dri_dir, HwInventory& inventory) {
  std::error_code error;
  std::filesystem::directory_iterator entries(dri_dir, error);
  if (error) {
    bool missing = error == std::errc::no_such_file_or_directory;
    inventory.notes.push_back(
        dri_dir + (missing ? ": no such directory" : ": cannot list: " + error.message()));
    return {};
  }
  std::vector<std::string> nodes;
  for (const std::filesystem::directory_entry& entry : entries) {
    if (entry.path().filename().string().starts_with("renderD"))
      nodes.push_back(entry.path().string());
  }
  std::sort(nodes.begin(), nodes.end(), render_node_before);
  if (nodes.empty()) inventory.notes.push_back(dri_dir + ": no renderD* nodes");
  return nodes;
}

// The attributes we plan with, as the driver answers them; an attribute it does not support
// stays 0 (unknown).
VaConfigAttributes query_va_attributes(VADisplay display, VAProfile profile,
                                       VAEntrypoint entrypoint) {
  std::array<VAConfigAttrib, 4> wanted{{{VAConfigAttribRTFormat, 0},
                                        {VAConfigAttribRateControl, 0},
                                        {VAConfigAttribMaxPictureWidth, 0},
                                        {VAConfigAttribMaxPictureHeight, 0}}};
  VaConfigAttributes attributes;
  if (vaGetConfigAttributes(display, profile, entrypoint, wanted.data(), int(wanted.size())) !=
      VA_STATUS_SUCCESS)
    return attributes;
  auto value = [](const VAConfigAttrib& attrib) {
    return attrib.value == VA_ATTRIB_NOT_SUPPORTED ? 0u : attrib.value;
  };
  attributes.rt_formats = value(wanted[0]);
  attributes.rate_control = value(wanted[1]);
  attributes.max_width = int(value(wanted[2]));
  attributes.max_height = int(value(wanted[3]));
  return attributes;
}

Result<std::vector<VaProfileEntrypoints>> query_va_profiles(VADisplay display) {
  std::vector<VAProfile> profiles(std::max(vaMaxNumProfiles(display), 0));
  int profile_count = 0;
  VAStatus status = vaQueryConfigProfiles(display, profiles.data(), &profile_count);
  if (status != VA_STATUS_SUCCESS)
    return Status(Code::kDevice,
                  std::string("vaQueryConfigProfiles failed: ") + vaErrorStr(status));
  profiles.resize(profile_count);

  std::vector<VAEntrypoint> entrypoints(std::max(vaMaxNumEntrypoints(display), 0));
  std::vector<VaProfileEntrypoints> answers;
  for (VAProfile profile : profiles) {
    int entrypoint_count = 0;
    if (vaQueryConfigEntrypoints(display, profile, entrypoints.data(), &entrypoint_count) !=
        VA_STATUS_SUCCESS)
      continue;  // a profile the driver lists but cannot describe: skip it, keep the rest
    VaProfileEntrypoints answer{
        profile, std::vector<int>(entrypoints.begin(), entrypoints.begin() + entrypoint_count), {}};
    for (int entrypoint : answer.entrypoints)
      answer.attributes[entrypoint] =
          query_va_attributes(display, profile, static_cast<VAEntrypoint>(entrypoint));
    answers.push_back(std::move(answer));
  }
  return answers;
}

// A VA config or context, destroyed with its display's function.
template <typename Id, VAStatus (*destroy)(VADisplay, Id)>
class VaObject {
 public:
  VaObject(VADisplay display, Id id) : display_(display), id_(id) {}
  VaObject(const VaObject&) = delete;
  VaObject& operator=(const VaObject&) = delete;
  ~VaObject() { destroy(display_, id_); }
  Id get() const { return id_; }

 private:
  VADisplay display_;
  Id id_;
};

// Asks VPP for its HDR tone-mapping caps as tonemap_vaapi does (a VideoProc config and
// context, vaQueryVideoProcFilterCaps); false where any step is refused.
bool probe_hdr_tonemap(VADisplay display) {
  VAConfigID config_id = VA_INVALID_ID;
  if (vaCreateConfig(display, VAProfileNone, VAEntrypointVideoProc, nullptr, 0, &config_id) !=
      VA_STATUS_SUCCESS)
    return false;
  VaObject<VAConfigID, vaDestroyConfig> config(display, config_id);
  // A context of a common output size, as vaapi_vpp.c creates one for its output.
  VAContextID context_id = VA_INVALID_ID;
  if (vaCreateContext(display, config.get(), 1920, 1080, 0, nullptr, 0, &context_id) !=
      VA_STATUS_SUCCESS)
    return false;
  VaObject<VAContextID, vaDestroyContext> context(display, context_id);
  std::vector<VAProcFilterCapHighDynamicRange> caps(VAProcHighDynamicRangeMetadataTypeCount);
  unsigned count = unsigned(caps.size());
  if (vaQueryVideoProcFilterCaps(display, context.get(), VAProcFilterHighDynamicRangeToneMapping,
                                 caps.data(), &count) != VA_STATUS_SUCCESS)
    return false;
  caps.resize(std::min<size_t>(count, caps.size()));
  return tonemaps_hdr10(caps);
}

// Opens libva on an Intel node and fills vendor and caps, or says why the node is unusable.
void probe_va_driver(int fd, const std::string& debugfs_root, HwDevice& device) {
  VaDisplayHandle display(vaGetDisplayDRM(fd));
  if (!display.get()) {
    device.unusable_reason = "vaGetDisplayDRM failed on " + device.path;
    return;
  }
  quiet_libva(display.get());
  int major = 0;
  int minor = 0;
  VAStatus status = vaInitialize(display.get(), &major, &minor);
  if (status != VA_STATUS_SUCCESS) {
    const char* driver_name = std::getenv("LIBVA_DRIVER_NAME");
    device.unusable_reason = "vaInitialize failed on " + device.path + ": " + vaErrorStr(status) +
                             " (" + va_init_hint(device.driver, driver_name ? driver_name : "") +
                             ")";
    return;
  }
  const char* vendor = vaQueryVendorString(display.get());
  device.vendor = vendor ? vendor : "";
  device.unusable_reason = va_vendor_rejection(device.vendor);
  // An emulation layer on an Intel node is there because LIBVA_DRIVER_NAME chose it: say so.
  const char* forced = std::getenv("LIBVA_DRIVER_NAME");
  if (!device.usable() && forced && *forced)
    device.unusable_reason += " (LIBVA_DRIVER_NAME=" + std::string(forced) +
                              " chose it: unset it or set LIBVA_DRIVER_NAME=iHD)";
  if (!device.usable()) return;

  Result<std::vector<VaProfileEntrypoints>> profiles = query_va_profiles(display.get());
  if (!profiles.is_ok()) {
    device.unusable_reason = device.path + ": " + profiles.status().message();
    return;
  }
  apply_va_caps(*profiles, device);
  if (device.can_scale) device.can_tonemap = probe_hdr_tonemap(display.get());
  apply_huc_state(debugfs_root, fd, device);
}

// From the node's PCI device id: the model ("Arc A380 (DG2)"), and what its generation's VPP
// does in 10 bits (which no libva query is used for). Nothing where the node is not PCI or the
// id is not in our table.
void name_pci_device(int fd, HwDevice& device) {
  drmDevicePtr drm_device = nullptr;
  if (drmGetDevice2(fd, 0, &drm_device) != 0 || !drm_device) return;
  if (drm_device->bustype == DRM_BUS_PCI && drm_device->deviceinfo.pci &&
      drm_device->deviceinfo.pci->vendor_id == 0x8086) {
    uint16_t id = drm_device->deviceinfo.pci->device_id;
    device.model = intel_model_name(id);
    device.generation = intel_generation_of(id);
    set_vpp_ten_bit(device.generation, device);
  }
  drmFreeDevice(&drm_device);
}

HwDevice probe_render_node(const std::string& path, const std::string& debugfs_root) {
  HwDevice device;
  device.backend = BackendKind::kVaapi;
  device.path = path;

  ScopedFd fd(open(path.c_str(), O_RDWR | O_CLOEXEC));
  if (!fd.is_open()) {
    device.unusable_reason = render_node_open_error(path, errno);
    return device;
  }
  DrmVersion version(drmGetVersion(fd.get()));
  if (!version) {
    device.unusable_reason = path + " is not a DRM device (drmGetVersion failed)";
    return device;
  }
  device.driver.assign(version->name, version->name_len);
  name_pci_device(fd.get(), device);
  if (!is_intel_driver(device.driver)) {
    device.unusable_reason =
        "kernel driver " + device.driver + " is not an Intel GPU driver (i915/xe)";
    return device;
  }
  probe_va_driver(fd.get(), debugfs_root, device);
  return device;
}

void discover_vaapi(const DiscoveryOptions& options, HwInventory& inventory) {
  for (const std::string& node : list_render_nodes(options.dri_dir, inventory))
    inventory.devices.push_back(probe_render_node(node, options.debugfs));
}

// ---- CUDA and Vulkan: through libavutil's hwcontext ----

struct SharedLibraryCloser {
  void operator()(void* handle) const { dlclose(handle); }
};
using SharedLibrary = std::unique_ptr<void, SharedLibraryCloser>;

// Why a library that libav dlopen()s at run time (the CUDA driver, NVENC, the Vulkan loader) cannot
// be loaded; empty when it can. libav says so only in its log and returns a bare -1 ("Operation
// not permitted") or AVERROR_UNKNOWN, which would make a useless note.
std::string library_load_error(const char* library) {
  SharedLibrary loaded(dlopen(library, RTLD_LAZY | RTLD_LOCAL));
  if (loaded) return {};
  const char* error = dlerror();
  return error ? error : std::string("cannot load ") + library;
}

Result<av::BufferRefPtr> create_hw_device(AVHWDeviceType type, const char* name,
                                          const char* runtime_library) {
  std::string load_error = library_load_error(runtime_library);
  if (!load_error.empty()) return Status(Code::kDevice, load_error);
  return open_hw_device(type, name ? name : "");
}

bool has_cuda_hw_config(const AVCodec* codec) {
  for (int i = 0;; ++i) {
    const AVCodecHWConfig* config = avcodec_get_hw_config(codec, i);
    if (!config) return false;
    if (config->device_type == AV_HWDEVICE_TYPE_CUDA) return true;
  }
}

// Any decoder of the codec that takes a CUDA device: the nvdec hwaccel of the native decoder or a
// *_cuvid decoder. Not only avcodec_find_decoder's pick, which for AV1 is libdav1d (no hwaccel).
bool has_cuda_decoder(AVCodecID codec_id) {
  void* iterator = nullptr;
  while (const AVCodec* codec = av_codec_iterate(&iterator)) {
    if (codec->id == codec_id && av_codec_is_decoder(codec) && has_cuda_hw_config(codec))
      return true;
  }
  return false;
}

void add_cuda_decoders(HwDevice& device) {
  // What libavcodec can hand to NVDEC, at NVDEC's depths for these codecs. Whether this GPU's
  // NVDEC has the codec (AV1 needs Ampere or newer) is not probed here: the decoder says so.
  for (CodecDepth codec : {CodecDepth{AV_CODEC_ID_H264, 8}, CodecDepth{AV_CODEC_ID_HEVC, 10},
                           CodecDepth{AV_CODEC_ID_VP9, 10}, CodecDepth{AV_CODEC_ID_AV1, 10}}) {
    if (has_cuda_decoder(codec.codec)) device.decode[codec.codec] = codec.bit_depth;
  }
}

// Opens a session: the only sure way to know that this GPU, in this container, can encode (an
// H200 has no NVENC at all; the library loads and fails only here).
Status open_nvenc(const AVCodec* encoder, const AVBufferRef& cuda_device) {
  av::CodecContextPtr context(avcodec_alloc_context3(encoder));
  if (!context) return Status(Code::kInternal, "out of memory");
  context->width = 256;
  context->height = 256;
  context->pix_fmt = AV_PIX_FMT_YUV420P;
  context->time_base = AVRational{1, 25};
  context->hw_device_ctx = av_buffer_ref(&cuda_device);
  int ret = avcodec_open2(context.get(), encoder, nullptr);
  if (ret >= 0) return Status::ok();
  std::string reason = av_error_text(ret);
  // nvenc.c maps NV_ENC_ERR_UNSUPPORTED_DEVICE to ENOSYS and NV_ENC_ERR_NO_ENCODE_DEVICE to ENOENT.
  if (ret == AVERROR(ENOSYS) || ret == AVERROR(ENOENT))
    reason +=
        " (NVENC refused the device: a GPU without NVENC, or a container without /dev/nvidia0)";
  return Status(Code::kDevice, reason);
}

void probe_nvenc(VideoCodec codec, const AVBufferRef& cuda_device, HwDevice& device,
                 HwInventory& inventory) {
  const std::string encoder_name(backend_desc(BackendKind::kCuda).encoder_for(codec));
  if (encoder_name.empty()) return;  // NVENC has no encoder for this codec
  auto unavailable = [&](const std::string& why) {
    inventory.notes.push_back("cuda " + device.path + ": " + encoder_name + " unavailable: " + why);
    device.encode_unavailable[codec_id(codec)] = encoder_name + ": " + why;
  };
  const AVCodec* encoder = avcodec_find_encoder_by_name(encoder_name.c_str());
  if (!encoder) return unavailable("not in this libavcodec");
  std::string load_error = library_load_error("libnvidia-encode.so.1");
  if (!load_error.empty()) return unavailable(load_error);
  Status opened = open_nvenc(encoder, cuda_device);
  if (!opened.is_ok()) return unavailable(opened.message());
  device.encode[codec_id(codec)].full = true;
}

void discover_cuda(const DiscoveryOptions& options, HwInventory& inventory) {
  Result<av::BufferRefPtr> cuda_device =
      create_hw_device(AV_HWDEVICE_TYPE_CUDA, "0", "libcuda.so.1");
  if (!cuda_device.is_ok()) {
    inventory.notes.push_back("cuda: " + cuda_device.status().message());
    return;
  }
  HwDevice device;
  device.backend = BackendKind::kCuda;
  device.path = "0";
  device.ordinal = 0;
  device.driver = "nvidia";
  device.can_scale = avfilter_get_by_name("scale_cuda") != nullptr;
  add_cuda_decoders(device);
  // Each probe opens an encode session: only for the codecs the caller may use.
  for (VideoCodec codec : {VideoCodec::kH264, VideoCodec::kHevc, VideoCodec::kAv1})
    if (options.nvenc_codecs.empty() ||
        std::find(options.nvenc_codecs.begin(), options.nvenc_codecs.end(), codec) !=
            options.nvenc_codecs.end())
      probe_nvenc(codec, **cuda_device, device, inventory);
  inventory.devices.push_back(std::move(device));
}

void discover_vulkan(HwInventory& inventory) {
  Result<av::BufferRefPtr> vulkan_device =
      create_hw_device(AV_HWDEVICE_TYPE_VULKAN, "0", "libvulkan.so.1");
  if (!vulkan_device.is_ok()) {
    inventory.notes.push_back("vulkan: " + vulkan_device.status().message());
    return;
  }
  HwDevice device;
  device.backend = BackendKind::kVulkan;
  device.path = "0";
  device.driver = "vulkan";
  // vendor stays empty: the device name needs Vulkan's headers and loader, which we do not use.
  device.can_scale = avfilter_get_by_name("scale_vulkan") != nullptr;
  inventory.devices.push_back(std::move(device));
}

// A QSV device per usable VA-API node, derived from the node's VA-API device; that needs libmfx
// (Media SDK, up to Gen12) or oneVPL's runtime (Gen12 and newer), which FFmpeg loads only here.
// A node whose generation has no runtime for this build is not tried; each note names the
// generation found, or says it could not be told.
void discover_qsv(HwInventory& inventory) {
  std::vector<HwDevice> found;
  QsvRuntime runtime = this_build_qsv_runtime();
  for (const HwDevice& node : inventory.devices) {
    if (node.backend != BackendKind::kVaapi || !node.usable()) continue;
    std::string refusal = intel_qsv_node_refusal(node.generation, node.model, runtime);
    if (!refusal.empty()) {
      inventory.notes.push_back("qsv " + node.path + ": " + refusal);
      continue;
    }
    Result<av::BufferRefPtr> qsv_device = open_hw_device(AV_HWDEVICE_TYPE_QSV, node.path);
    if (!qsv_device.is_ok()) {
      inventory.notes.push_back("qsv " + node.path + ": " + qsv_device.status().message() + " (" +
                                intel_qsv_open_hint(node.generation, node.model) + ")");
      continue;
    }
    found.push_back(qsv_device_on(node));
  }
  for (HwDevice& device : found) inventory.devices.push_back(std::move(device));
}

}  // namespace

HwDevice qsv_device_on(const HwDevice& vaapi_node) {
  HwDevice device = vaapi_node;
  device.backend = BackendKind::kQsv;
  device.can_scale =
      vaapi_node.can_scale &&
      avfilter_get_by_name(std::string(backend_desc(BackendKind::kQsv).scale.name).c_str()) !=
          nullptr;
  return device;
}

DiscoveryOptions discovery_for(const JobSpec& spec, DiscoveryOptions base) {
  base.vaapi =
      base.vaapi && (spec.backend == BackendKind::kAuto || spec.backend == BackendKind::kVaapi ||
                     spec.backend == BackendKind::kQsv);  // QSV rides on VA-API nodes
  base.qsv = base.qsv || spec.backend == BackendKind::kQsv;
  base.cuda = base.cuda || spec.backend == BackendKind::kCuda;
  base.vulkan = base.vulkan || spec.backend == BackendKind::kVulkan;
  for (const OutputSpec& output : spec.outputs) base.nvenc_codecs.push_back(output.codec);
  return base;
}

bool nvidia_driver_loaded(const std::string& proc) {
  return access((proc + "/driver/nvidia/version").c_str(), R_OK) == 0;
}

HwInventory discover_devices(const DiscoveryOptions& options) {
  HwInventory inventory;
  if (options.vaapi) discover_vaapi(options, inventory);
  if (options.vaapi && options.qsv) discover_qsv(inventory);
  if (options.cuda) discover_cuda(options, inventory);
  if (options.vulkan) discover_vulkan(inventory);
  return inventory;
}

}  // namespace tc
