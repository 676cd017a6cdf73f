// Set-up paid once (issue 15): a daemon hands its inventory to workers as JSON, and `transcode
// run` keeps what discovery found in a cache keyed by the host's devices, drivers and libraries.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "pipeline/hw/discovery_cache.h"
#include "pipeline/hw/inventory_json.h"
#include "pipeline/plan/plan.h"
#include "tests/unit/fixtures.h"

namespace tc::testing {
namespace {

namespace fs = std::filesystem;

HwInventory full_inventory() {
  HwDevice gpu = intel_gpu();
  gpu.encode[AV_CODEC_ID_H264].full_rate_control = va_rc::kCbr | va_rc::kVbr;
  gpu.encode[AV_CODEC_ID_H264].max_width = 4096;
  gpu.decode_profiles.push_back({21, "HEVCMain10", AV_CODEC_ID_HEVC, 10, 420, 8192, 8192});
  gpu.model = "Arc A380 (DG2)";
  HwDevice cuda;
  cuda.backend = BackendKind::kCuda;
  cuda.path = "0";
  cuda.driver = "nvidia";
  cuda.unusable_reason = "no NVDEC";
  HwInventory devices = inventory({gpu, cuda});
  devices.notes.push_back("vulkan: no device");
  return devices;
}

// A device with every field away from its default (can_tonemap false: set, and not "not
// probed"), in literal values.
HwDevice every_field_set() {
  HwDevice device;
  device.backend = BackendKind::kQsv;
  device.path = "/dev/dri/renderD129";
  device.ordinal = 1;
  device.driver = "xe";
  device.vendor = "Intel iHD driver 24.1";
  device.decode = {{AV_CODEC_ID_HEVC, 10}};
  EncodeEntrypoints hevc;
  hevc.full = true;
  hevc.low_power = true;
  hevc.full_rate_control = va_rc::kCbr | va_rc::kVbr;
  hevc.low_power_rate_control = va_rc::kCqp | va_rc::kIcq;
  hevc.max_width = 8192;
  hevc.max_height = 4096;
  hevc.full_bit_depth = 10;
  hevc.low_power_bit_depth = 8;
  hevc.full_chroma = 444;
  hevc.low_power_chroma = 422;
  device.encode = {{AV_CODEC_ID_HEVC, hevc}};
  device.encode_unavailable = {{AV_CODEC_ID_AV1, "av1_qsv: not in this libavcodec"}};
  device.can_scale = true;
  device.can_tonemap = false;
  device.vpp_reads_ten_bit = true;
  device.vpp_writes_ten_bit = false;
  device.huc_running = false;
  device.huc_seen = "debugfs /sys/kernel/debug/dri/1/gt1/uc/huc_info: DISABLED";
  device.decode_profiles = {{23, "HEVCMain422_10", AV_CODEC_ID_HEVC, 10, 422, 8192, 4096}};
  device.model = "Arc A380 (DG2)";
  device.generation = "dg2";
  device.unusable_reason = "render node busy";
  return device;
}

// Field by field, each named (a field added later fails the build here until it is compared):
// `got` holds what `want` holds, and `want` sets every field away from the default.
void expect_same(const EncodeEntrypoints& got, const EncodeEntrypoints& want) {
  const auto& [full, low_power, full_rc, low_power_rc, max_width, max_height, full_depth,
               low_power_depth, full_chroma, low_power_chroma] = got;
  const auto& [w_full, w_low_power, w_full_rc, w_low_power_rc, w_max_width, w_max_height,
               w_full_depth, w_low_power_depth, w_full_chroma, w_low_power_chroma] = want;
  const EncodeEntrypoints d;
  EXPECT_TRUE(w_full != d.full && w_low_power != d.low_power && w_full_rc != d.full_rate_control &&
              w_low_power_rc != d.low_power_rate_control && w_max_width != d.max_width &&
              w_max_height != d.max_height && w_full_depth != d.full_bit_depth &&
              w_low_power_depth != d.low_power_bit_depth && w_full_chroma != d.full_chroma &&
              w_low_power_chroma != d.low_power_chroma);
  EXPECT_EQ(full, w_full);
  EXPECT_EQ(low_power, w_low_power);
  EXPECT_EQ(full_rc, w_full_rc);
  EXPECT_EQ(low_power_rc, w_low_power_rc);
  EXPECT_EQ(max_width, w_max_width);
  EXPECT_EQ(max_height, w_max_height);
  EXPECT_EQ(full_depth, w_full_depth) << "full_bit_depth";
  EXPECT_EQ(low_power_depth, w_low_power_depth) << "low_power_bit_depth";
  EXPECT_EQ(full_chroma, w_full_chroma) << "full_chroma";
  EXPECT_EQ(low_power_chroma, w_low_power_chroma) << "low_power_chroma";
}

void expect_same(const DecodeProfile& got, const DecodeProfile& want) {
  const auto& [va_profile, name, codec, bit_depth, chroma, max_width, max_height] = got;
  const auto& [w_va_profile, w_name, w_codec, w_bit_depth, w_chroma, w_max_width, w_max_height] =
      want;
  const DecodeProfile d;
  EXPECT_TRUE(w_va_profile != d.va_profile && w_name != d.name && w_codec != d.codec &&
              w_bit_depth != d.bit_depth && w_chroma != d.chroma && w_max_width != d.max_width &&
              w_max_height != d.max_height);
  EXPECT_EQ(va_profile, w_va_profile);
  EXPECT_EQ(name, w_name);
  EXPECT_EQ(codec, w_codec);
  EXPECT_EQ(bit_depth, w_bit_depth);
  EXPECT_EQ(chroma, w_chroma);
  EXPECT_EQ(max_width, w_max_width);
  EXPECT_EQ(max_height, w_max_height);
}

void expect_same(const HwDevice& got, const HwDevice& want) {
  const auto& [backend, path, ordinal, driver, vendor, decode, encode, encode_unavailable,
               can_scale, can_tonemap, vpp_reads_ten_bit, vpp_writes_ten_bit, huc_running, huc_seen,
               decode_profiles, model, generation, unusable_reason] = got;
  const auto& [w_backend, w_path, w_ordinal, w_driver, w_vendor, w_decode, w_encode,
               w_encode_unavailable, w_can_scale, w_can_tonemap, w_vpp_reads_ten_bit,
               w_vpp_writes_ten_bit, w_huc_running, w_huc_seen, w_decode_profiles, w_model,
               w_generation, w_unusable_reason] = want;
  const HwDevice d;
  EXPECT_TRUE(w_backend != d.backend && w_path != d.path && w_ordinal != d.ordinal &&
              w_driver != d.driver && w_vendor != d.vendor && w_decode != d.decode &&
              !w_encode.empty() && !w_encode_unavailable.empty() && w_can_scale != d.can_scale &&
              w_can_tonemap != d.can_tonemap && w_vpp_reads_ten_bit != d.vpp_reads_ten_bit &&
              w_vpp_writes_ten_bit != d.vpp_writes_ten_bit && w_huc_running != d.huc_running &&
              w_huc_seen != d.huc_seen && !w_decode_profiles.empty() && w_model != d.model &&
              w_generation != d.generation && w_unusable_reason != d.unusable_reason);
  EXPECT_EQ(backend, w_backend);
  EXPECT_EQ(path, w_path);
  EXPECT_EQ(ordinal, w_ordinal);
  EXPECT_EQ(driver, w_driver);
  EXPECT_EQ(vendor, w_vendor);
  EXPECT_EQ(decode, w_decode);
  ASSERT_EQ(encode.size(), w_encode.size());
  for (const auto& [codec, entrypoints] : w_encode) {
    ASSERT_EQ(encode.count(codec), 1u) << codec;
    expect_same(encode.at(codec), entrypoints);
  }
  EXPECT_EQ(encode_unavailable, w_encode_unavailable) << "encode_unavailable";
  EXPECT_EQ(can_scale, w_can_scale);
  EXPECT_EQ(can_tonemap, w_can_tonemap) << "can_tonemap";
  EXPECT_EQ(vpp_reads_ten_bit, w_vpp_reads_ten_bit) << "vpp_reads_ten_bit";
  EXPECT_EQ(vpp_writes_ten_bit, w_vpp_writes_ten_bit) << "vpp_writes_ten_bit";
  EXPECT_EQ(huc_running, w_huc_running) << "huc_running";
  EXPECT_EQ(huc_seen, w_huc_seen) << "huc_seen";
  ASSERT_EQ(decode_profiles.size(), w_decode_profiles.size());
  for (size_t i = 0; i < decode_profiles.size(); ++i)
    expect_same(decode_profiles[i], w_decode_profiles[i]);
  EXPECT_EQ(model, w_model);
  EXPECT_EQ(generation, w_generation) << "generation";
  EXPECT_EQ(unusable_reason, w_unusable_reason);
}

TEST(InventoryJson, RoundTripsEveryFieldAndPlansTheSame) {
  HwInventory every = inventory({every_field_set()});
  every.notes = {"vulkan: no device"};
  const auto& [devices, notes] = every;
  Result<HwInventory> read = inventory_from_json(inventory_to_json(every));
  ASSERT_TRUE(read.is_ok()) << read.status().to_string();
  ASSERT_EQ(read->devices.size(), devices.size());
  expect_same(read->devices[0], devices[0]);
  EXPECT_EQ(read->notes, notes);
  // What a worker plans with the daemon's inventory is what the daemon's own would give.
  HwInventory original = full_inventory();
  Result<HwInventory> read_full = inventory_from_json(inventory_to_json(original));
  ASSERT_TRUE(read_full.is_ok()) << read_full.status().to_string();
  JobSpec spec = job({output("a.mp4", 1280, 720), output("b.mp4", 640, 360)});
  Result<Plan> from_original = make_plan(spec, media(), original);
  Result<Plan> from_read = make_plan(spec, media(), *read_full);
  ASSERT_TRUE(from_original.is_ok() && from_read.is_ok());
  EXPECT_EQ(describe(*from_read), describe(*from_original));
}

TEST(InventoryJson, NamesWhatIsWrong) {
  nlohmann::json bad = inventory_to_json(full_inventory());
  bad["devices"][0].erase("driver");
  Result<HwInventory> read = inventory_from_json(bad);
  ASSERT_FALSE(read.is_ok());
  EXPECT_EQ(read.status().code(), Code::kInvalidArgument);
  EXPECT_NE(read.status().message().find("driver"), std::string::npos) << read.status().message();
  bad = inventory_to_json(full_inventory());
  bad["devices"][0]["backend"] = "warp";
  EXPECT_FALSE(inventory_from_json(bad).is_ok());
}

// A fake host: an NVIDIA driver version and a VA-API driver library, under a temp root.
class FakeHost : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("tc-host-" + std::to_string(::getpid()));
    fs::create_directories(root_ / "proc/driver/nvidia");
    fs::create_directories(root_ / "usr/lib/x86_64-linux-gnu/dri");
    set_nvidia("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15");
    std::ofstream(root_ / "usr/lib/x86_64-linux-gnu/dri/iHD_drv_video.so") << "24.1.0";
  }
  void TearDown() override { fs::remove_all(root_); }
  void set_nvidia(const std::string& line) {
    std::ofstream(root_ / "proc/driver/nvidia/version") << line << "\n";
  }
  std::string key(const DiscoveryOptions& options = {}) {
    return fingerprint_key(discovery_fingerprint(options, root_.string()));
  }
  fs::path root_;
};

TEST_F(FakeHost, TheKeyChangesWithTheDriversAndNothingElse) {
  std::string first = key();
  EXPECT_EQ(key(), first) << "the same host gives the same key";
  set_nvidia("NVRM version: NVIDIA UNIX x86_64 Kernel Module  555.42.02");
  std::string new_nvidia = key();
  EXPECT_NE(new_nvidia, first) << "an NVIDIA driver upgrade";
  std::ofstream(root_ / "usr/lib/x86_64-linux-gnu/dri/iHD_drv_video.so") << "24.2.0 rebuilt";
  EXPECT_NE(key(), new_nvidia) << "a new intel-media-driver";
  DiscoveryOptions with_cuda;
  with_cuda.cuda = true;
  EXPECT_NE(key(with_cuda), key()) << "another question";
  // A boot may load HuC where the last one did not (i915.enable_guc=2): discovery reads it again.
  std::string before_boot = key();
  fs::create_directories(root_ / "proc/sys/kernel/random");
  std::ofstream(root_ / "proc/sys/kernel/random/boot_id")
      << "0b5e4c1c-5f0e-4d7e-9d35-3d1d2f0e0a11\n";
  EXPECT_NE(key(), before_boot) << "another boot";
  // Nothing else: files beside the drivers that are no driver leave the key as it was.
  std::string drivers_now = key();
  fs::create_directories(root_ / "etc");
  std::ofstream(root_ / "etc/hostname") << "another-name";
  std::ofstream(root_ / "usr/lib/x86_64-linux-gnu/libunrelated.so.1") << "a library";
  std::ofstream(root_ / "proc/driver/nvidia/params") << "EnableMSI: 1";
  EXPECT_EQ(key(), drivers_now) << "a file that is no driver";
}

// A real device is needed for an entry to be kept: Mesa's lavapipe (the vulkan tests' device).
TEST_F(FakeHost, AnEntryIsReadUntilTheDriverChanges) {
  DiscoveryOptions options;
  options.vaapi = false;
  options.vulkan = true;
  fs::path cache = root_ / "cache/transcoded";
  HwInventory found = discover_cached(options, cache.string(), root_.string());
  if (found.devices.empty() || !found.devices[0].usable())
    GTEST_SKIP() << "no Vulkan device here (Mesa's lavapipe): nothing to cache";
  std::vector<fs::path> entries;
  for (const auto& entry : fs::directory_iterator(cache)) entries.push_back(entry.path());
  ASSERT_EQ(entries.size(), 1u);
  // Mark the entry: a later answer that carries the mark was read from the cache.
  nlohmann::json entry = nlohmann::json::parse(std::ifstream(entries[0]));
  entry["inventory"]["devices"][0]["vendor"] = "from the cache";
  std::ofstream(entries[0]) << entry.dump();
  EXPECT_EQ(discover_cached(options, cache.string(), root_.string()).devices[0].vendor,
            "from the cache");
  set_nvidia("NVRM version: NVIDIA UNIX x86_64 Kernel Module  560.35.03");
  EXPECT_EQ(discover_cached(options, cache.string(), root_.string()).devices[0].vendor,
            found.devices[0].vendor)
      << "a driver change must discover again";
  EXPECT_EQ(discover_cached(options, "", root_.string()).devices[0].vendor, found.devices[0].vendor)
      << "no cache directory (--no-cache): always discovered";
}

}  // namespace
}  // namespace tc::testing
