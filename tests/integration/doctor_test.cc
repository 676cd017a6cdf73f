// `transcode doctor` end to end: on this machine (no GPU, no /dev/dri on the test hosts) it says
// so, lists what it checked and exits 5; with a DRI directory given it looks there.
#include <gtest/gtest.h>
#include <unistd.h>
#include <va/va_version.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "service/common/exit_codes.h"
#include "service/doctor/test_transcode.h"
#include "tests/support/media_tools.h"

namespace tc::testing {
namespace {

TEST(Doctor, WithoutAGpuSaysSoAndWhatItChecked) {
  if (std::filesystem::exists("/dev/dri")) GTEST_SKIP() << "this host has /dev/dri";
  ProcessResult table = transcode({"doctor"});
  EXPECT_EQ(table.exit_code, kExitDevice) << table.out << table.err;
  EXPECT_NE(table.out.find("fail  render-node (/dev/dri)"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("fix: "), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("no GPU device"), std::string::npos) << table.out;

  ProcessResult json = transcode({"doctor", "--json"});
  EXPECT_EQ(json.exit_code, kExitDevice) << json.err;
  nlohmann::json report = nlohmann::json::parse(json.out);
  EXPECT_EQ(report["exit_code"], kExitDevice);
  EXPECT_EQ(report["no_device"], true);
  EXPECT_EQ(report["passed"], false);
  std::set<std::string> names;
  for (const auto& check : report["checks"]) {
    names.insert(check["name"].get<std::string>());
    EXPECT_TRUE(check["status"] == "pass" || check["status"] == "fail" || check["status"] == "skip")
        << check.dump();
  }
  for (const char* name : {"render-node", "kernel-driver", "profile", "va-driver", "guc", "huc",
                           "fdinfo", "test-transcode"})
    EXPECT_EQ(names.count(name), 1u) << name << "\n" << json.out;
}

TEST(Doctor, LooksInTheDevRootItIsGiven) {
  TempDir dir;
  std::filesystem::create_directories(dir / "dri");
  std::ofstream(dir / "dri/renderD128").put('\0');
  ProcessResult run = transcode(
      {"doctor", "--json", "--no-transcode", "--dev-root", dir.path(), "--sys-root", dir / "sys"});
  nlohmann::json report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report["no_device"], false) << run.out;
  // A plain file is no DRM device: discovery says so, and the missing sysfs link is named.
  EXPECT_EQ(run.exit_code, kExitCheckFailed) << run.out;
  bool driver_failed = false;
  for (const auto& check : report["checks"])
    if (check["name"] == "kernel-driver") driver_failed = check["status"] == "fail";
  EXPECT_TRUE(driver_failed) << run.out;
}

}  // namespace
}  // namespace tc::testing

namespace tc::testing {
namespace {

// The test transcode's own measure, proved on the software path (no GPU here): the clip scaled
// to 640x360 by `transcode run` measures as the same picture, a red frame as a different one.
TEST(Doctor, TestClipPsnrTellsTheClipFromAnotherPicture) {
  TempDir dir;
  ASSERT_TRUE(doctor::write_test_clip(dir / "clip.mkv").is_ok());
  ProcessResult run = transcode(
      {"run", dir / "clip.mkv", dir / "scaled.mkv", "--size", "640x360", "--backend", "software"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  Result<double> same = doctor::test_clip_psnr(dir / "scaled.mkv", dir / "clip.mkv");
  ASSERT_TRUE(same.is_ok()) << same.status().message();
  EXPECT_GE(*same, 30);

  ProcessResult red = run_process({"ffmpeg", "-hide_banner", "-loglevel", "error", "-f", "lavfi",
                                   "-i", "color=c=red:size=640x360:rate=30", "-t", "1", "-pix_fmt",
                                   "yuv420p", "-c:v", "libx264", dir / "red.mkv"});
  ASSERT_EQ(red.exit_code, 0) << red.err;
  Result<double> other = doctor::test_clip_psnr(dir / "red.mkv", dir / "clip.mkv");
  ASSERT_TRUE(other.is_ok()) << other.status().message();
  EXPECT_LT(*other, 20);
}

}  // namespace
}  // namespace tc::testing

namespace tc::testing {
namespace {

namespace fs = std::filesystem;

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

// A node's trees as a Coffee Lake desktop (UHD Graphics 630) shows them without GuC/HuC, which
// stock kernels do not load on Gen9.
struct FakeIntelTrees {
  TempDir dir;
  explicit FakeIntelTrees(const std::string& pci_device) {
    fs::create_directories(dir / "dev/dri");
    std::ofstream(dir / "dev/dri/renderD128").put('\0');
    fs::path device = dir / "sys/class/drm/renderD128/device";
    write_text(device / "vendor", "0x8086\n");
    write_text(device / "device", pci_device + "\n");
    fs::create_directory_symlink("../../../bus/pci/drivers/i915", device / "driver");
    write_text(dir / "debug/dri/0/gt/uc/guc_info",
               "GuC firmware: i915/kbl_guc_70.1.1.bin\n\tstatus: DISABLED\n");
    write_text(dir / "debug/dri/0/gt/uc/huc_info",
               "HuC firmware: i915/kbl_huc_4.0.0.bin\n\tstatus: DISABLED\n");
  }
  nlohmann::json doctor() {
    ProcessResult run = transcode({"doctor", "--json", "--no-transcode", "--dev-root", dir / "dev",
                                   "--sys-root", dir / "sys", "--debugfs-root", dir / "debug"});
    return nlohmann::json::parse(run.out);
  }
};

nlohmann::json check_named(const nlohmann::json& report, const std::string& name) {
  for (const auto& check : report["checks"])
    if (check["name"] == name) return check;
  ADD_FAILURE() << "no check " << name << " in " << report.dump(2);
  return {};
}

// The fake node is a plain file, so libva cannot open it (va-driver fails): what is checked
// here is that the PCI id and the firmware no longer fail on a working Coffee Lake machine.
TEST(DoctorIntel, CoffeeLakeWithoutHucIsFoundAndNotFailed) {
  FakeIntelTrees trees("0x3e98");
  nlohmann::json report = trees.doctor();
  nlohmann::json profile = check_named(report, "profile");
  EXPECT_EQ(profile["status"], "pass") << profile.dump();
  EXPECT_NE(profile["seen"].get<std::string>().find("UHD Graphics 630 (CFL), --assume-device kbl"),
            std::string::npos)
      << profile.dump();
  for (const char* name : {"guc", "huc"}) {
    nlohmann::json firmware = check_named(report, name);
    EXPECT_EQ(firmware["status"], "skip") << firmware.dump();
    EXPECT_NE(firmware["seen"].get<std::string>().find("not required on kbl"), std::string::npos)
        << firmware.dump();
  }
}

TEST(DoctorIntel, AnIdNotInTheTableIsSaidNotFailed) {
  FakeIntelTrees trees("0xfffe");
  nlohmann::json profile = check_named(trees.doctor(), "profile");
  EXPECT_EQ(profile["status"], "skip") << profile.dump();
  EXPECT_NE(profile["seen"].get<std::string>().find("PCI 8086:fffe is not in the table"),
            std::string::npos)
      << profile.dump();
}

TEST(DoctorIntel, LunarLakeOnI915IsRefused) {
  TempDir dir;
  ASSERT_TRUE(doctor::write_test_clip(dir / "clip.mkv").is_ok());
  ProcessResult run = transcode(
      {"run", dir / "clip.mkv", dir / "out.mp4", "--dry-run", "--assume-device", "lnl:i915"});
  EXPECT_EQ(run.exit_code, kExitUsage) << run.out << run.err;
  EXPECT_NE(run.err.find("Lunar Lake (LNL) runs only on the xe kernel driver"), std::string::npos)
      << run.err;
}

// A dry run says what it assumed of HuC (VDEnc CBR/VBR run in it), and the spec for the other
// case: tgl stands for TGL/RKL too, whose stock kernels do not load HuC.
TEST(DoctorIntel, ADryRunSaysTheHucItAssumed) {
  TempDir dir;
  ASSERT_TRUE(doctor::write_test_clip(dir / "clip.mkv").is_ok());
  ProcessResult tgl =
      transcode({"run", dir / "clip.mkv", dir / "out.mp4", "--dry-run", "--assume-device", "tgl"});
  ASSERT_EQ(tgl.exit_code, kExitOk) << tgl.err;
  for (const char* fact :
       {"HuC: assumed running on i915", "TGL, RKL: not by default", "plan with tgl:no-huc"})
    EXPECT_NE(tgl.out.find(fact), std::string::npos) << fact << "\n" << tgl.out;
  ProcessResult xe = transcode(
      {"run", dir / "clip.mkv", dir / "out.mp4", "--dry-run", "--assume-device", "dg2:xe:no-huc"});
  ASSERT_EQ(xe.exit_code, kExitOk) << xe.err;
  EXPECT_NE(xe.out.find("HuC: assumed not running on xe"), std::string::npos) << xe.out;
}

// A dry run for an xe GPU on this build (libva 2.17 on Debian 12) plans, and says that this
// build could not run it, naming the versions.
TEST(DoctorIntel, AnXeDryRunOnThisBuildNamesTheVersionsItLacks) {
  TempDir dir;
  ASSERT_TRUE(doctor::write_test_clip(dir / "clip.mkv").is_ok());
  for (const char* spec : {"lnl", "bmg", "dg2:xe"}) {
    ProcessResult run =
        transcode({"run", dir / "clip.mkv", dir / "out.mp4", "--dry-run", "--assume-device", spec});
    ASSERT_EQ(run.exit_code, kExitOk) << spec << "\n" << run.err;
    if (VA_MINOR_VERSION >= 21) {
      EXPECT_EQ(run.out.find("note: this build's VA-API stack"), std::string::npos) << run.out;
      continue;
    }
    for (const char* fact :
         {"note: this build's VA-API stack cannot drive the xe kernel driver", "libva 2.17",
          "iHD 23.1.1", "kernel 6.1", "Lunar Lake from 24.3", "Battlemage from 24.4",
          "Debian 13 image has them (libva 2.22, iHD 25.2, FFmpeg 7.1)"})
      EXPECT_NE(run.out.find(fact), std::string::npos) << spec << ": " << fact << "\n" << run.out;
  }
  ProcessResult i915 =
      transcode({"run", dir / "clip.mkv", dir / "out.mp4", "--dry-run", "--assume-device", "dg2"});
  EXPECT_EQ(i915.out.find("note: this build's"), std::string::npos) << i915.out;
}

}  // namespace
}  // namespace tc::testing
