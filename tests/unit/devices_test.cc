// Device discovery without an Intel GPU: capability mapping from fixture profile lists (as real
// GPUs report them), the pure helpers, and discovery over temp directories standing in for
// /dev/dri. CUDA and Vulkan discovery must give a device or a note, whatever the host has.
#include "pipeline/hw/devices.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>
#include <va/va_version.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "pipeline/hw/va_caps.h"

namespace tc {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

bool has_note(const HwInventory& inventory, const std::string& note) {
  for (const std::string& each : inventory.notes) {
    if (each == note) return true;
  }
  return false;
}

bool has_note_starting(const HwInventory& inventory, const std::string& prefix) {
  for (const std::string& each : inventory.notes) {
    if (each.starts_with(prefix)) return true;
  }
  return false;
}

// For failure messages: what discovery said.
std::string notes_of(const HwInventory& inventory) {
  std::string text;
  for (const std::string& note : inventory.notes) text += "[" + note + "] ";
  return text;
}

// Whether this host could load a library that libav dlopen()s (the CUDA driver, the Vulkan loader).
bool host_can_load(const char* library) {
  struct Closer {
    void operator()(void* handle) const { dlclose(handle); }
  };
  return std::unique_ptr<void, Closer>(dlopen(library, RTLD_LAZY | RTLD_LOCAL)) != nullptr;
}

HwDevice device_with(const std::vector<VaProfileEntrypoints>& profiles) {
  HwDevice device;
  apply_va_caps(profiles, device);
  return device;
}

// ---- apply_va_caps: fixtures shaped like real GPUs' vainfo ----

TEST(ApplyVaCapsTest, ArcLikeDeviceEncodesOnlyInLowPower) {
  // DG2/Arc: VDEnc only, so every encode entrypoint is EncSliceLP.
  HwDevice device = device_with({
      {VAProfileH264Main, {VAEntrypointVLD, VAEntrypointEncSliceLP}},
      {VAProfileH264High, {VAEntrypointVLD, VAEntrypointEncSliceLP}},
      {VAProfileHEVCMain, {VAEntrypointVLD, VAEntrypointEncSliceLP}},
      {VAProfileHEVCMain10, {VAEntrypointVLD, VAEntrypointEncSliceLP}},
      {VAProfileAV1Profile0, {VAEntrypointVLD, VAEntrypointEncSliceLP}},
      {VAProfileNone, {VAEntrypointVideoProc}},
  });
  for (AVCodecID codec : {AV_CODEC_ID_H264, AV_CODEC_ID_HEVC, AV_CODEC_ID_AV1}) {
    ASSERT_EQ(device.encode.count(codec), 1u) << avcodec_get_name(codec);
    EXPECT_TRUE(device.encode[codec].low_power) << avcodec_get_name(codec);
    EXPECT_FALSE(device.encode[codec].full) << avcodec_get_name(codec);
    EXPECT_TRUE(device.encodes(codec)) << avcodec_get_name(codec);
  }
  EXPECT_TRUE(device.decodes(AV_CODEC_ID_AV1, 10));
  EXPECT_TRUE(device.decodes(AV_CODEC_ID_HEVC, 10));
  EXPECT_TRUE(device.can_scale);
}

TEST(ApplyVaCapsTest, Gen9LikeDeviceHasFullAndLowPowerEncode) {
  HwDevice device = device_with({
      {VAProfileH264ConstrainedBaseline,
       {VAEntrypointVLD, VAEntrypointEncSlice, VAEntrypointEncSliceLP}},
      {VAProfileH264Main, {VAEntrypointVLD, VAEntrypointEncSlice, VAEntrypointEncSliceLP}},
      {VAProfileHEVCMain, {VAEntrypointVLD, VAEntrypointEncSlice}},
      {VAProfileVP9Profile0, {VAEntrypointVLD}},
      {VAProfileJPEGBaseline, {VAEntrypointVLD, VAEntrypointEncPicture}},
      {VAProfileNone, {VAEntrypointVideoProc}},
  });
  EXPECT_TRUE(device.encode[AV_CODEC_ID_H264].full);
  EXPECT_TRUE(device.encode[AV_CODEC_ID_H264].low_power);
  EXPECT_TRUE(device.encode[AV_CODEC_ID_HEVC].full);
  EXPECT_FALSE(device.encode[AV_CODEC_ID_HEVC].low_power);
  EXPECT_TRUE(device.decodes(AV_CODEC_ID_VP9, 8));
  EXPECT_FALSE(device.encodes(AV_CODEC_ID_VP9));
  EXPECT_FALSE(device.decodes(AV_CODEC_ID_HEVC, 10));
}

TEST(ApplyVaCapsTest, HevcMain10DecodeGivesDepth10) {
  // Main10 listed before Main: the depth is the highest, not the last seen.
  HwDevice device = device_with({
      {VAProfileHEVCMain10, {VAEntrypointVLD}},
      {VAProfileHEVCMain, {VAEntrypointVLD}},
  });
  ASSERT_EQ(device.decode.count(AV_CODEC_ID_HEVC), 1u);
  EXPECT_EQ(device.decode[AV_CODEC_ID_HEVC], 10);
}

TEST(ApplyVaCapsTest, HevcMainAloneDecodesOnly8Bit) {
  HwDevice device = device_with({{VAProfileHEVCMain, {VAEntrypointVLD}}});
  EXPECT_EQ(device.decode[AV_CODEC_ID_HEVC], 8);
  EXPECT_FALSE(device.decodes(AV_CODEC_ID_HEVC, 10));
}

TEST(ApplyVaCapsTest, ProfilesMapToCodecAndDepth) {
  HwDevice device = device_with({
      {VAProfileH264ConstrainedBaseline, {VAEntrypointVLD}},
      {VAProfileHEVCMain12, {VAEntrypointVLD}},
      {VAProfileVP9Profile2, {VAEntrypointVLD}},
      {VAProfileVP9Profile0, {VAEntrypointVLD}},
      {VAProfileAV1Profile0, {VAEntrypointVLD}},
      {VAProfileMPEG2Simple, {VAEntrypointVLD}},
      {VAProfileMPEG2Main, {VAEntrypointVLD}},
      {VAProfileVP8Version0_3, {VAEntrypointVLD}},
  });
  std::map<AVCodecID, int> expected = {
      {AV_CODEC_ID_H264, 8}, {AV_CODEC_ID_HEVC, 12},      {AV_CODEC_ID_VP9, 10},
      {AV_CODEC_ID_AV1, 10}, {AV_CODEC_ID_MPEG2VIDEO, 8}, {AV_CODEC_ID_VP8, 8},
  };
  EXPECT_EQ(device.decode, expected);
  EXPECT_TRUE(device.encode.empty());
}

TEST(ApplyVaCapsTest, EncodeOnlyProfileAddsNoDecode) {
  HwDevice device = device_with({{VAProfileH264Main, {VAEntrypointEncSliceLP}}});
  EXPECT_EQ(device.decode.count(AV_CODEC_ID_H264), 0u);
  EXPECT_TRUE(device.encodes(AV_CODEC_ID_H264));
}

TEST(ApplyVaCapsTest, VideoProcOnProfileNoneSetsCanScale) {
  EXPECT_TRUE(device_with({{VAProfileNone, {VAEntrypointVideoProc}}}).can_scale);
}

TEST(ApplyVaCapsTest, VideoProcElsewhereDoesNotSetCanScale) {
  EXPECT_FALSE(device_with({{VAProfileH264Main, {VAEntrypointVideoProc}}}).can_scale);
  EXPECT_FALSE(device_with({{VAProfileNone, {VAEntrypointVLD}}}).can_scale);
  EXPECT_FALSE(device_with({}).can_scale);
}

TEST(ApplyVaCapsTest, UnknownProfilesAreIgnored) {
  HwDevice device = device_with({
      {VAProfileJPEGBaseline, {VAEntrypointVLD, VAEntrypointEncPicture}},
      {VAProfileHEVCMain444, {VAEntrypointVLD, VAEntrypointEncSlice}},
      {VAProfileVP9Profile1, {VAEntrypointVLD}},
      {9999, {VAEntrypointVLD, VAEntrypointEncSliceLP}},  // newer than this libva
  });
  EXPECT_TRUE(device.decode.empty());
  EXPECT_TRUE(device.encode.empty());
  EXPECT_FALSE(device.can_scale);
}

// ---- pure helpers ----

TEST(IsIntelDriverTest, AcceptsI915AndXeOnly) {
  EXPECT_TRUE(is_intel_driver("i915"));
  EXPECT_TRUE(is_intel_driver("xe"));
  for (const char* other :
       {"amdgpu", "radeon", "nouveau", "nvidia-drm", "virtio_gpu", "", "I915", "i915 ", "xe2"}) {
    EXPECT_FALSE(is_intel_driver(other)) << "'" << other << "'";
  }
}

TEST(IsEmulatedVaapiVendorTest, EmulationLayersAreEmulated) {
  EXPECT_TRUE(
      is_emulated_vaapi_vendor("Splitted-Desktop Systems VDPAU backend for VA-API - 0.7.4"));
  EXPECT_TRUE(is_emulated_vaapi_vendor("VA-API NVDEC driver [direct backend]"));
}

TEST(IsEmulatedVaapiVendorTest, RealDriversAreNotEmulated) {
  EXPECT_FALSE(is_emulated_vaapi_vendor("Intel iHD driver for Intel(R) Gen Graphics - 23.1.1 ()"));
  EXPECT_FALSE(is_emulated_vaapi_vendor("Intel i965 driver for Intel(R) Coffee Lake - 2.4.1"));
  // Mesa is a real driver (for AMD): rejected for not being Intel, not for being emulated.
  EXPECT_FALSE(is_emulated_vaapi_vendor(
      "Mesa Gallium driver 22.3.6 for AMD Radeon RX 6600 (navi23, LLVM 15.0.6, DRM 3.49)"));
  EXPECT_FALSE(is_emulated_vaapi_vendor(""));
}

TEST(VaVendorRejectionTest, IntelDriversAreAccepted) {
  EXPECT_EQ(va_vendor_rejection("Intel iHD driver for Intel(R) Gen Graphics - 24.1.0 ()"), "");
  EXPECT_EQ(va_vendor_rejection("Intel i965 driver for Intel(R) Skylake - 2.4.1"), "");
}

TEST(VaVendorRejectionTest, EmulationAndMesaAreRejectedWithTheVendor) {
  std::string vdpau = "Splitted-Desktop Systems VDPAU backend for VA-API - 0.7.4";
  std::string rejection = va_vendor_rejection(vdpau);
  EXPECT_TRUE(contains(rejection, "emulation")) << rejection;
  EXPECT_TRUE(contains(rejection, vdpau)) << rejection;

  std::string mesa = "Mesa Gallium driver 22.3.6 for AMD Radeon RX 6600";
  rejection = va_vendor_rejection(mesa);
  EXPECT_TRUE(contains(rejection, "not an Intel driver")) << rejection;
  EXPECT_TRUE(contains(rejection, mesa)) << rejection;
}

// Debian 12's libva 2.17 and iHD 23.1.1 cannot drive xe, whatever LIBVA_DRIVER_NAME says: the
// hint names the versions and the image that has them; with libva 2.21+ it asks for iHD 23.4+.
TEST(VaInitHintTest, XeNodeNamesWhatThisBuildLacks) {
  for (const char* forced : {"", "iHD"}) {
    std::string hint = va_init_hint("xe", forced);
    EXPECT_TRUE(contains(hint, "xe")) << hint;
    if (VA_MINOR_VERSION < 21) {
      EXPECT_TRUE(contains(hint, "libva 2." + std::to_string(VA_MINOR_VERSION))) << hint;
      EXPECT_TRUE(contains(hint, "iHD supports xe from 23.4")) << hint;
      EXPECT_TRUE(contains(hint, "Debian 13 image")) << hint;
    }
  }
}

TEST(VaInitHintTest, ForeignDriverNameIsNamed) {
  std::string hint = va_init_hint("i915", "nvidia");
  EXPECT_TRUE(contains(hint, "LIBVA_DRIVER_NAME=nvidia")) << hint;
  EXPECT_TRUE(contains(hint, "unset it")) << hint;
  EXPECT_TRUE(contains(va_init_hint("i915", ""), "intel-media-va-driver"));
}

TEST(RenderNodeOpenErrorTest, PermissionFailureNamesTheRenderGroup) {
  for (int errno_value : {EACCES, EPERM}) {
    std::string reason = render_node_open_error("/dev/dri/renderD128", errno_value);
    EXPECT_TRUE(contains(reason, "/dev/dri/renderD128")) << reason;
    EXPECT_TRUE(contains(reason, "`render` group")) << reason;
  }
}

TEST(RenderNodeOpenErrorTest, OtherFailuresGiveTheSystemError) {
  std::string reason = render_node_open_error("/dev/dri/renderD129", ENOENT);
  EXPECT_TRUE(contains(reason, "/dev/dri/renderD129")) << reason;
  EXPECT_TRUE(contains(reason, "No such file or directory")) << reason;
  EXPECT_FALSE(contains(reason, "render` group")) << reason;
}

// ---- HwDevice and HwInventory ----

TEST(HwDeviceTest, DecodesUpToItsBitDepth) {
  HwDevice device;
  device.decode[AV_CODEC_ID_HEVC] = 10;
  EXPECT_TRUE(device.decodes(AV_CODEC_ID_HEVC, 8));
  EXPECT_TRUE(device.decodes(AV_CODEC_ID_HEVC, 10));
  EXPECT_FALSE(device.decodes(AV_CODEC_ID_HEVC, 12));
  EXPECT_FALSE(device.decodes(AV_CODEC_ID_H264, 8));
}

TEST(HwDeviceTest, EncodesWithEitherEntrypoint) {
  HwDevice device;
  device.encode[AV_CODEC_ID_H264].full = true;
  device.encode[AV_CODEC_ID_HEVC].low_power = true;
  device.encode[AV_CODEC_ID_AV1] = {};  // listed, but neither entrypoint
  EXPECT_TRUE(device.encodes(AV_CODEC_ID_H264));
  EXPECT_TRUE(device.encodes(AV_CODEC_ID_HEVC));
  EXPECT_FALSE(device.encodes(AV_CODEC_ID_AV1));
  EXPECT_FALSE(device.encodes(AV_CODEC_ID_VP9));
}

HwDevice make_device(BackendKind backend, const std::string& path, const std::string& reason = {}) {
  HwDevice device;
  device.backend = backend;
  device.path = path;
  device.unusable_reason = reason;
  return device;
}

TEST(HwInventoryTest, FindGivesTheFirstUsableDeviceOfTheBackend) {
  HwInventory inventory;
  inventory.devices = {
      make_device(BackendKind::kVaapi, "/dev/dri/renderD128", "kernel driver amdgpu is not..."),
      make_device(BackendKind::kCuda, "0"),
      make_device(BackendKind::kVaapi, "/dev/dri/renderD129"),
      make_device(BackendKind::kVaapi, "/dev/dri/renderD130"),
  };
  const HwDevice* vaapi = inventory.find(BackendKind::kVaapi);
  ASSERT_NE(vaapi, nullptr);
  EXPECT_EQ(vaapi->path, "/dev/dri/renderD129");
  const HwDevice* cuda = inventory.find(BackendKind::kCuda);
  ASSERT_NE(cuda, nullptr);
  EXPECT_EQ(cuda->path, "0");
  EXPECT_EQ(inventory.find(BackendKind::kVulkan), nullptr);
}

TEST(HwInventoryTest, FindByPathGivesThatDeviceOnlyWhenUsable) {
  HwInventory inventory;
  inventory.devices = {
      make_device(BackendKind::kVaapi, "/dev/dri/renderD128", "cannot open ..."),
      make_device(BackendKind::kVaapi, "/dev/dri/renderD129"),
      make_device(BackendKind::kVaapi, "/dev/dri/renderD130"),
  };
  const HwDevice* second = inventory.find(BackendKind::kVaapi, "/dev/dri/renderD130");
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->path, "/dev/dri/renderD130");
  EXPECT_EQ(inventory.find(BackendKind::kVaapi, "/dev/dri/renderD128"), nullptr);
  EXPECT_EQ(inventory.find(BackendKind::kVaapi, "/dev/dri/renderD131"), nullptr);
  EXPECT_EQ(inventory.find(BackendKind::kCuda, "/dev/dri/renderD129"), nullptr);
}

TEST(HwInventoryTest, FindInAnEmptyInventoryGivesNothing) {
  EXPECT_EQ(HwInventory{}.find(BackendKind::kVaapi), nullptr);
}

// ---- discover_devices over stand-ins for /dev/dri ----

// A fresh directory, removed with its contents at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "devices_test.XXXXXX").string();
    if (mkdtemp(pattern.data())) path_ = pattern;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty()) fs::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

class DiscoverDevicesTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(dri_.path().empty()) << "mkdtemp failed"; }

  void make_file(const std::string& name) {
    std::ofstream file(dri_.path() + "/" + name);
    file << "not a device\n";
    ASSERT_TRUE(file.good()) << name;
  }
  // VA-API only: CUDA and Vulkan stay off unless a test asks.
  HwInventory discover() const {
    DiscoveryOptions options;
    options.dri_dir = dri_.path();
    return discover_devices(options);
  }

  TempDir dri_;
};

// What discovery does after vaInitialize with the HuC state (va_caps.h apply_huc_state), on a
// node whose caps iHD listed with CBR/VBR on VDEnc, against a fake debugfs tree. The node path
// does not exist, so no ioctl answers: debugfs alone decides.
class ApplyHucStateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(root_.path().empty()) << "mkdtemp failed";
    EncodeEntrypoints hevc;
    hevc.low_power = true;
    hevc.low_power_rate_control = kAll;
    device_.driver = "xe";
    device_.path = root_.path() + "/dev/dri/renderD128";
    device_.encode[AV_CODEC_ID_HEVC] = hevc;
  }
  void write_huc_info(const std::string& gt, const std::string& status) {
    fs::path path = fs::path(debugfs()) / "dri/0" / gt / "uc/huc_info";
    fs::create_directories(path.parent_path());
    std::ofstream(path) << "HuC firmware: xe/bmg_huc.bin\n\tstatus: " << status << "\n";
  }
  std::string debugfs() const { return root_.path() + "/debug"; }
  uint32_t low_power_modes() const {
    return device_.encode.at(AV_CODEC_ID_HEVC).low_power_rate_control;
  }

  static constexpr uint32_t kAll = va_rc::kCbr | va_rc::kVbr | va_rc::kCqp | va_rc::kIcq;
  TempDir root_;
  HwDevice device_;
};

TEST_F(ApplyHucStateTest, XeWithHucRunningOnTheMediaGtKeepsCbrAndVbr) {
  write_huc_info("gt0", "NOT_SUPPORTED");
  write_huc_info("gt1", "RUNNING");
  apply_huc_state(debugfs(), -1, device_);
  EXPECT_EQ(low_power_modes(), kAll);
  EXPECT_EQ(device_.huc_running, std::optional<bool>(true));
  EXPECT_EQ(device_.huc_seen, "debugfs " + debugfs() + "/dri/0/gt1/uc/huc_info: RUNNING");
}

TEST_F(ApplyHucStateTest, XeWithHucDisabledIsCqpOnlyAndSaysNotRunning) {
  write_huc_info("gt1", "DISABLED");
  apply_huc_state(debugfs(), -1, device_);
  EXPECT_EQ(low_power_modes(), va_rc::kCqp);
  EXPECT_EQ(device_.huc_running, std::optional<bool>(false));
  EXPECT_EQ(device_.huc_seen, "debugfs " + debugfs() + "/dri/0/gt1/uc/huc_info: DISABLED");
}

TEST_F(ApplyHucStateTest, XeWithoutDebugfsIsCqpOnlyAndSaysUnknown) {
  apply_huc_state(debugfs(), -1, device_);
  EXPECT_EQ(low_power_modes(), va_rc::kCqp);
  EXPECT_EQ(device_.huc_running, std::nullopt);
  EXPECT_NE(device_.huc_seen.find("debugfs is not mounted, or needs root"), std::string::npos)
      << device_.huc_seen;
}

TEST_F(ApplyHucStateTest, I915KeepsWhatIhdListsAndRecordsTheState) {
  // On i915 iHD asks the kernel itself (I915_PARAM_HUC_STATUS): its list is already right.
  device_.driver = "i915";
  write_huc_info("gt", "DISABLED");
  apply_huc_state(debugfs(), -1, device_);
  EXPECT_EQ(low_power_modes(), kAll);
  EXPECT_EQ(device_.huc_running, std::optional<bool>(false));
}

TEST_F(DiscoverDevicesTest, MissingDirectoryIsANote) {
  DiscoveryOptions options;
  options.dri_dir = dri_.path() + "/dri";
  HwInventory inventory = discover_devices(options);
  EXPECT_TRUE(inventory.devices.empty());
  EXPECT_TRUE(has_note(inventory, options.dri_dir + ": no such directory")) << notes_of(inventory);
}

TEST_F(DiscoverDevicesTest, EmptyDirectoryIsANote) {
  HwInventory inventory = discover();
  EXPECT_TRUE(inventory.devices.empty());
  EXPECT_TRUE(has_note(inventory, dri_.path() + ": no renderD* nodes")) << notes_of(inventory);
}

TEST_F(DiscoverDevicesTest, OnlyCardNodesIsANote) {
  // A card node is the primary (modesetting) node; VA-API uses render nodes only.
  make_file("card0");
  fs::create_directory(dri_.path() + "/by-path");
  HwInventory inventory = discover();
  EXPECT_TRUE(inventory.devices.empty());
  EXPECT_TRUE(has_note(inventory, dri_.path() + ": no renderD* nodes")) << notes_of(inventory);
}

TEST_F(DiscoverDevicesTest, RegularFileIsAnUnusableDevice) {
  make_file("renderD128");
  HwInventory inventory = discover();
  ASSERT_EQ(inventory.devices.size(), 1u) << notes_of(inventory);
  const HwDevice& device = inventory.devices[0];
  std::string path = dri_.path() + "/renderD128";
  EXPECT_EQ(device.backend, BackendKind::kVaapi);
  EXPECT_EQ(device.path, path);
  EXPECT_FALSE(device.usable());
  EXPECT_TRUE(contains(device.unusable_reason, path)) << device.unusable_reason;
  EXPECT_TRUE(contains(device.unusable_reason, "not a DRM device")) << device.unusable_reason;
  EXPECT_EQ(inventory.find(BackendKind::kVaapi), nullptr);
  EXPECT_EQ(inventory.find(BackendKind::kVaapi, path), nullptr);
}

TEST_F(DiscoverDevicesTest, NodeThatCannotBeOpenedIsUnusable) {
  // A directory and a dangling link: open() fails, with the system's reason.
  fs::create_directory(dri_.path() + "/renderD128");
  fs::create_symlink(dri_.path() + "/gone", dri_.path() + "/renderD129");
  HwInventory inventory = discover();
  ASSERT_EQ(inventory.devices.size(), 2u) << notes_of(inventory);
  for (const HwDevice& device : inventory.devices) {
    EXPECT_FALSE(device.usable()) << device.path;
    EXPECT_TRUE(contains(device.unusable_reason, "cannot open " + device.path))
        << device.unusable_reason;
  }
  EXPECT_TRUE(contains(inventory.devices[1].unusable_reason, "No such file or directory"))
      << inventory.devices[1].unusable_reason;
}

TEST_F(DiscoverDevicesTest, NodesAreProbedInNumericOrder) {
  for (const char* name : {"renderD1000", "renderD129", "card0", "renderD128"}) make_file(name);
  HwInventory inventory = discover();
  ASSERT_EQ(inventory.devices.size(), 3u) << notes_of(inventory);
  EXPECT_EQ(inventory.devices[0].path, dri_.path() + "/renderD128");
  EXPECT_EQ(inventory.devices[1].path, dri_.path() + "/renderD129");
  EXPECT_EQ(inventory.devices[2].path, dri_.path() + "/renderD1000");
}

TEST_F(DiscoverDevicesTest, VaapiOffLooksAtNothing) {
  DiscoveryOptions options;
  options.dri_dir = dri_.path() + "/dri";
  options.vaapi = false;
  HwInventory inventory = discover_devices(options);
  EXPECT_TRUE(inventory.devices.empty());
  EXPECT_TRUE(inventory.notes.empty()) << notes_of(inventory);
}

TEST(DiscoverDevicesHostTest, DefaultsReportDevicesOrANote) {
  HwInventory inventory = discover_devices();
  if (!fs::exists("/dev/dri")) {
    EXPECT_TRUE(inventory.devices.empty());
    EXPECT_TRUE(has_note(inventory, "/dev/dri: no such directory")) << notes_of(inventory);
    return;
  }
  EXPECT_FALSE(inventory.devices.empty() && inventory.notes.empty());
  for (const HwDevice& device : inventory.devices) {
    EXPECT_EQ(device.backend, BackendKind::kVaapi);
    EXPECT_TRUE(device.path.starts_with("/dev/dri/renderD")) << device.path;
  }
}

TEST(DiscoverDevicesHostTest, CudaGivesADeviceOrANote) {
  DiscoveryOptions options;
  options.vaapi = false;
  options.cuda = true;
  HwInventory inventory = discover_devices(options);
  if (inventory.devices.empty()) {
    // Without a driver the note names the missing library, not libav's bare -1 ("Operation not
    // permitted").
    std::string expected = host_can_load("libcuda.so.1") ? "cuda: " : "cuda: libcuda.so.1";
    EXPECT_TRUE(has_note_starting(inventory, expected)) << notes_of(inventory);
    return;
  }
  ASSERT_EQ(inventory.devices.size(), 1u);
  const HwDevice& device = inventory.devices[0];
  EXPECT_EQ(device.backend, BackendKind::kCuda);
  EXPECT_EQ(device.path, "0");
  EXPECT_EQ(device.driver, "nvidia");
  EXPECT_TRUE(device.usable()) << device.unusable_reason;
  // Each NVENC encoder was opened or said why not: never silently absent.
  EXPECT_TRUE(device.encodes(AV_CODEC_ID_H264) ||
              has_note_starting(inventory, "cuda 0: h264_nvenc unavailable: "))
      << notes_of(inventory);
  EXPECT_TRUE(device.encodes(AV_CODEC_ID_HEVC) ||
              has_note_starting(inventory, "cuda 0: hevc_nvenc unavailable: "))
      << notes_of(inventory);
}

TEST(DiscoverDevicesHostTest, VulkanGivesADeviceOrANote) {
  DiscoveryOptions options;
  options.vaapi = false;
  options.vulkan = true;
  HwInventory inventory = discover_devices(options);
  if (inventory.devices.empty()) {
    std::string expected = host_can_load("libvulkan.so.1") ? "vulkan: " : "vulkan: libvulkan.so.1";
    EXPECT_TRUE(has_note_starting(inventory, expected)) << notes_of(inventory);
    return;
  }
  ASSERT_EQ(inventory.devices.size(), 1u);
  const HwDevice& device = inventory.devices[0];
  EXPECT_EQ(device.backend, BackendKind::kVulkan);
  EXPECT_EQ(device.driver, "vulkan");
  EXPECT_TRUE(device.usable()) << device.unusable_reason;
  EXPECT_TRUE(device.decode.empty());
  EXPECT_TRUE(device.encode.empty());
}

}  // namespace
}  // namespace tc
