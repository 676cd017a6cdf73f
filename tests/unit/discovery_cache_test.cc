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

TEST(InventoryJson, RoundTripsEveryFieldAndPlansTheSame) {
  HwInventory original = full_inventory();
  Result<HwInventory> read = inventory_from_json(inventory_to_json(original));
  ASSERT_TRUE(read.is_ok()) << read.status().to_string();
  EXPECT_EQ(inventory_to_json(*read), inventory_to_json(original));
  EXPECT_EQ(read->devices[0].decode_profiles[0].name, "HEVCMain10");
  EXPECT_EQ(read->devices[1].unusable_reason, "no NVDEC");
  // What a worker plans with the daemon's inventory is what the daemon's own would give.
  JobSpec spec = job({output("a.mp4", 1280, 720), output("b.mp4", 640, 360)});
  Result<Plan> from_original = make_plan(spec, media(), original);
  Result<Plan> from_read = make_plan(spec, media(), *read);
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
