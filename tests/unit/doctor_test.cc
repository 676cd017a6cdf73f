// `transcode doctor`'s checks against fake /dev, /sys, /proc and debugfs trees: each problem a
// user meets on a GPU node gives its own message, fix and exit code.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <va/va_version.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "service/common/exit_codes.h"
#include "service/doctor/doctor.h"

namespace tc::doctor {
namespace {

namespace fs = std::filesystem;

constexpr const char* kI915Fdinfo =
    "pos:    0\n"
    "drm-driver:     i915\n"
    "drm-client-id:  7\n"
    "drm-pdev:       0000:03:00.0\n"
    "drm-engine-render:      9288864723 ns\n"
    "drm-engine-video:       4211 ns\n";

constexpr const char* kIhdVendor = "Intel iHD driver for Intel(R) Gen Graphics - 23.1.1 ()";

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

// A healthy Arc A380 node: every check passes until a test breaks one piece.
class FakeNode : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "doctor-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    options_.roots = {root_ / "dev", root_ / "sys", root_ / "proc", root_ / "debug"};
    node_ = (root_ / "dev/dri/renderD128").string();
    write(node_, "");
    fs::permissions(node_, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                               fs::perms::group_write);
    fs::path device = root_ / "sys/class/drm/renderD128/device";
    write(device / "vendor", "0x8086\n");
    write(device / "device", "0x56a5\n");
    fs::create_directory_symlink("../../../bus/pci/drivers/i915", device / "driver");
    write(root_ / "proc/sys/kernel/osrelease", "6.8.0-test\n");
    set_guc_info("GuC firmware: i915/dg2_guc_70.bin\n\tstatus: RUNNING\n");
    set_huc_info("HuC firmware: i915/dg2_huc_gsc.bin\n\tstatus: RUNNING\n");
    set_fdinfo(kI915Fdinfo);
    // The node's file belongs to this test's gid; a user in that group may use it. The user is
    // never the file's owner (the container build's tester is uid 1000), who may use it anyway.
    struct stat info {};
    ASSERT_EQ(stat(node_.c_str(), &info), 0);
    node_gid_ = info.st_gid;
    other_uid_ = info.st_uid + 1;
    options_.identity = {other_uid_, {node_gid_}};
    options_.test_transcode = false;
    options_.discover = [this](const std::string&) {
      HwDevice device;
      device.path = node_;
      device.driver = "i915";
      device.vendor = kIhdVendor;
      device.model = "Arc A380 (DG2)";
      HwInventory inventory;
      inventory.devices.push_back(device);
      return inventory;
    };
  }
  void TearDown() override { fs::remove_all(root_); }

  void set_huc_info(const std::string& text) { write(root_ / "debug/dri/0/gt/uc/huc_info", text); }
  void set_guc_info(const std::string& text) { write(root_ / "debug/dri/0/gt/uc/guc_info", text); }
  // The check opens the node and reads proc/self/fdinfo/FD; whichever fd it gets has this text.
  void set_fdinfo(const std::string& text) {
    for (int fd = 0; fd < 256; ++fd) write(root_ / "proc/self/fdinfo" / std::to_string(fd), text);
  }

  const Check& only(const Report& report, const std::string& name) {
    const Check* found = nullptr;
    for (const Check& check : report.checks)
      if (check.name == name) {
        EXPECT_EQ(found, nullptr) << "two checks named " << name;
        found = &check;
      }
    if (!found) ADD_FAILURE() << "no check " << name << " in\n" << format_table(report);
    static const Check none;
    return found ? *found : none;
  }

  fs::path root_;
  std::string node_;
  gid_t node_gid_ = 0;
  uid_t other_uid_ = 0;  // not the node's owner
  Options options_;
};

TEST_F(FakeNode, HealthyNodePassesEveryCheck) {
  Report report = run_doctor(options_);
  for (const Check& check : report.checks)
    EXPECT_EQ(check.status, CheckStatus::kPass) << check.name << ": " << check.seen;
  EXPECT_EQ(report.exit_code(), kExitOk);
  EXPECT_NE(only(report, "profile").seen.find("Arc A380 (DG2), --assume-device dg2"),
            std::string::npos);
  EXPECT_NE(only(report, "kernel-driver").seen.find("i915, kernel 6.8.0-test"), std::string::npos);
  EXPECT_NE(only(report, "va-driver").seen.find("iHD 23.1.1"), std::string::npos);
  EXPECT_NE(only(report, "fdinfo").seen.find("video"), std::string::npos);
}

TEST_F(FakeNode, MissingRenderNodeIsNoDevice) {
  fs::remove(node_);
  Report report = run_doctor(options_);
  const Check& node = only(report, "render-node");
  EXPECT_EQ(node.status, CheckStatus::kFail);
  EXPECT_NE(node.seen.find("no renderD* node"), std::string::npos);
  EXPECT_NE(node.fix.find("--device /dev/dri"), std::string::npos);
  EXPECT_TRUE(report.no_device);
  EXPECT_EQ(report.exit_code(), kExitDevice);
  // The rest is listed as not checked, not silently dropped.
  EXPECT_EQ(only(report, "huc").status, CheckStatus::kSkip);
}

TEST_F(FakeNode, MissingDriDirectoryIsNoDevice) {
  fs::remove_all(root_ / "dev/dri");
  Report report = run_doctor(options_);
  EXPECT_NE(only(report, "render-node").seen.find("no such directory"), std::string::npos);
  EXPECT_EQ(report.exit_code(), kExitDevice);
}

TEST_F(FakeNode, WrongGroupSaysWhichGroupToAdd) {
  options_.identity = {other_uid_, {node_gid_ + 1}};
  Report report = run_doctor(options_);
  const Check& node = only(report, "render-node");
  EXPECT_EQ(node.status, CheckStatus::kFail);
  EXPECT_NE(node.seen.find("(" + std::to_string(node_gid_) + ")"), std::string::npos) << node.seen;
  EXPECT_NE(node.fix.find("--group-add $(stat -c %g " + node_ + ")"), std::string::npos)
      << node.fix;
  EXPECT_EQ(report.exit_code(), kExitCheckFailed);
}

TEST_F(FakeNode, OwnerWithoutGroupMayUseANodeItOwns) {
  EXPECT_TRUE(may_read_write({1000, {}}, 1000, 5, 0600));
  EXPECT_FALSE(may_read_write({1000, {}}, 1001, 5, 0660));
  EXPECT_TRUE(may_read_write({1000, {}}, 1001, 5, 0666));
  EXPECT_TRUE(may_read_write({0, {}}, 1001, 5, 0600));  // root: CAP_DAC_OVERRIDE
}

TEST_F(FakeNode, I965ForcedByTheEnvironmentFails) {
  options_.env["LIBVA_DRIVER_NAME"] = "i965";
  Report report = run_doctor(options_);
  const Check& va = only(report, "va-driver");
  EXPECT_EQ(va.status, CheckStatus::kFail);
  EXPECT_NE(va.seen.find("LIBVA_DRIVER_NAME=i965"), std::string::npos);
  EXPECT_NE(va.fix.find("LIBVA_DRIVER_NAME=iHD"), std::string::npos);
  EXPECT_EQ(report.exit_code(), kExitCheckFailed);
}

TEST_F(FakeNode, I965ChosenByLibvaFails) {
  options_.discover = [this](const std::string&) {
    HwInventory inventory;
    HwDevice device;
    device.path = node_;
    device.driver = "i915";
    device.vendor = "Intel i965 driver for Intel(R) Kaby Lake - 2.4.1";
    inventory.devices.push_back(device);
    return inventory;
  };
  Report report = run_doctor(options_);
  const Check& va = only(report, "va-driver");
  EXPECT_EQ(va.status, CheckStatus::kFail);
  EXPECT_NE(va.seen.find("i965 2.4.1"), std::string::npos) << va.seen;
}

// The Arc A380 (DG2) has no shader encoder: without HuC no encode does CBR/VBR.
TEST_F(FakeNode, NoHucOnDg2FailsNamingLowPowerEncode) {
  set_huc_info("HuC firmware: i915/dg2_huc_gsc.bin\n\tstatus: DISABLED\n");
  Report report = run_doctor(options_);
  const Check& huc = only(report, "huc");
  EXPECT_EQ(huc.status, CheckStatus::kFail);
  EXPECT_TRUE(huc.seen.starts_with("HuC DISABLED: required on dg2")) << huc.seen;
  EXPECT_NE(huc.seen.find("low-power (VDEnc)"), std::string::npos) << huc.seen;
  EXPECT_NE(huc.seen.find("from Linux 6.2"), std::string::npos) << huc.seen;
  EXPECT_NE(huc.fix.find("enable_guc=2"), std::string::npos);
  EXPECT_EQ(report.exit_code(), kExitCheckFailed);
}

TEST_F(FakeNode, GucStateIsReportedAndItsAbsenceFailsWithTheBootFix) {
  EXPECT_EQ(only(run_doctor(options_), "guc").status, CheckStatus::kPass);
  set_guc_info("GuC firmware: i915/kbl_guc_70.1.1.bin\n\tstatus: DISABLED\n");
  Report report = run_doctor(options_);
  const Check& guc = only(report, "guc");
  EXPECT_EQ(guc.status, CheckStatus::kFail);
  EXPECT_TRUE(guc.seen.starts_with("GuC DISABLED: required on dg2")) << guc.seen;
  EXPECT_NE(guc.fix.find("enable_guc=2"), std::string::npos);
  EXPECT_EQ(report.exit_code(), kExitCheckFailed);
}

TEST_F(FakeNode, HucUnknownWithoutDebugfsIsSkippedSayingWhy) {
  fs::remove_all(root_ / "debug");
  Report report = run_doctor(options_);
  const Check& huc = only(report, "huc");
  EXPECT_EQ(huc.status, CheckStatus::kSkip);
  EXPECT_NE(huc.seen.find("debugfs is not mounted"), std::string::npos);
  EXPECT_EQ(report.exit_code(), kExitOk);
}

TEST_F(FakeNode, FdinfoWithoutEngineKeysFails) {
  set_fdinfo("pos: 0\ndrm-driver: i915\ndrm-client-id: 3\ndrm-total-system0: 24 KiB\n");
  Report report = run_doctor(options_);
  const Check& fdinfo = only(report, "fdinfo");
  EXPECT_EQ(fdinfo.status, CheckStatus::kFail);
  EXPECT_NE(fdinfo.seen.find("no drm-engine-* or drm-cycles-* keys"), std::string::npos);
  EXPECT_NE(fdinfo.fix.find("5.19"), std::string::npos);
  EXPECT_EQ(report.exit_code(), kExitCheckFailed);
}

TEST_F(FakeNode, XeCycleCountersCountAsEngineCounters) {
  Check check = fdinfo_from_text(node_,
                                 "drm-driver: xe\ndrm-client-id: 4\ndrm-cycles-vcs: 12\n"
                                 "drm-total-cycles-vcs: 900\n");
  EXPECT_EQ(check.status, CheckStatus::kPass) << check.seen;
}

// An id iHD does not list is most likely a newer GPU: said, not failed.
TEST_F(FakeNode, UnknownPciIdIsNotInTheTableWithoutFailing) {
  write(root_ / "sys/class/drm/renderD128/device/device", "0xffff\n");
  Report report = run_doctor(options_);
  const Check& profile = only(report, "profile");
  EXPECT_EQ(profile.status, CheckStatus::kSkip);
  EXPECT_NE(profile.seen.find("PCI 8086:ffff is not in the table"), std::string::npos)
      << profile.seen;
  EXPECT_EQ(report.exit_code(), kExitOk) << format_table(report);
}

// A stock Coffee Lake desktop (UHD Graphics 630) boots without GuC/HuC: its shader encoders do
// CBR/VBR, so the node works and doctor says what HuC would add instead of failing.
TEST_F(FakeNode, CoffeeLakeWithoutFirmwarePasses) {
  write(root_ / "sys/class/drm/renderD128/device/device", "0x3e98\n");
  set_guc_info("GuC firmware: i915/kbl_guc_70.1.1.bin\n\tstatus: DISABLED\n");
  set_huc_info("HuC firmware: i915/kbl_huc_4.0.0.bin\n\tstatus: DISABLED\n");
  Report report = run_doctor(options_);
  EXPECT_EQ(report.exit_code(), kExitOk) << format_table(report);
  EXPECT_EQ(only(report, "profile").status, CheckStatus::kPass);
  EXPECT_NE(only(report, "profile")
                .seen.find("PCI 8086:3e98: UHD Graphics 630 (CFL), "
                           "--assume-device kbl"),
            std::string::npos)
      << only(report, "profile").seen;
  const Check& huc = only(report, "huc");
  EXPECT_EQ(huc.status, CheckStatus::kSkip);
  EXPECT_NE(huc.seen.find("not required on kbl"), std::string::npos) << huc.seen;
  EXPECT_NE(huc.seen.find("i915.enable_guc=2"), std::string::npos) << huc.seen;
  EXPECT_EQ(only(report, "guc").status, CheckStatus::kSkip);
}

// Meteor Lake's HuC is on the media GT: gt0 says it has none, gt1 runs it.
TEST_F(FakeNode, MeteorLakeHucOnTheMediaGtIsFound) {
  write(root_ / "sys/class/drm/renderD128/device/device", "0x7d55\n");
  fs::remove_all(root_ / "debug/dri/0/gt");
  write(root_ / "debug/dri/0/gt0/uc/huc_info", "HuC firmware: not supported\n");
  write(root_ / "debug/dri/0/gt0/uc/guc_info",
        "GuC firmware: i915/mtl_guc_70.bin\n\tstatus: RUNNING\n");
  write(root_ / "debug/dri/0/gt1/uc/huc_info",
        "HuC firmware: i915/mtl_huc_gsc.bin\n\tstatus: RUNNING\n");
  write(root_ / "debug/dri/0/gt1/uc/guc_info",
        "GuC firmware: i915/mtl_guc_70.bin\n\tstatus: RUNNING\n");
  Report report = run_doctor(options_);
  const Check& huc = only(report, "huc");
  EXPECT_EQ(huc.status, CheckStatus::kPass) << huc.seen;
  EXPECT_EQ(huc.subject, (root_ / "debug/dri/0/gt1/uc/huc_info").string());
  EXPECT_EQ(report.exit_code(), kExitOk) << format_table(report);
  // Neither GT running it: both are named, and Meteor Lake (no shader encoder) needs it.
  write(root_ / "debug/dri/0/gt1/uc/huc_info",
        "HuC firmware: i915/mtl_huc_gsc.bin\n\tstatus: LOAD_FAIL\n");
  Report without = run_doctor(options_);
  const Check& missing = only(without, "huc");
  EXPECT_EQ(missing.status, CheckStatus::kFail);
  EXPECT_NE(missing.seen.find("gt1/uc/huc_info: LOAD_FAIL"), std::string::npos) << missing.seen;
  EXPECT_NE(missing.seen.find("required on mtl"), std::string::npos) << missing.seen;
}

// On this build's libva (2.17 on Debian 12) an xe node cannot work; doctor says which versions.
TEST_F(FakeNode, XeNodeNamesTheStackThisBuildLacks) {
  write(root_ / "sys/class/drm/renderD128/device/device", "0x64a0\n");
  fs::remove(root_ / "sys/class/drm/renderD128/device/driver");
  fs::create_directory_symlink("../../../bus/pci/drivers/xe",
                               root_ / "sys/class/drm/renderD128/device/driver");
  Report report = run_doctor(options_);
  const Check& va = only(report, "va-driver");
  if (VA_MINOR_VERSION >= 21) {
    EXPECT_EQ(va.status, CheckStatus::kPass) << va.seen;
    return;
  }
  EXPECT_EQ(va.status, CheckStatus::kFail);
  for (const char* fact : {"libva 2.17", "iHD 23.1.1", "kernel 6.1", "from 2.21", "from 23.4",
                           "Lunar Lake from 24.3", "Battlemage from 24.4", "Debian 13 image"})
    EXPECT_NE(va.seen.find(fact), std::string::npos) << fact << "\n" << va.seen;
  EXPECT_EQ(report.exit_code(), kExitCheckFailed);
}

TEST_F(FakeNode, JsonCarriesEveryCheckAndTheExitCode) {
  options_.env["LIBVA_DRIVER_NAME"] = "i965";
  Report report = run_doctor(options_);
  nlohmann::json json = nlohmann::json::parse(report_to_json(report));
  EXPECT_EQ(json["exit_code"], kExitCheckFailed);
  EXPECT_EQ(json["passed"], false);
  ASSERT_EQ(json["checks"].size(), report.checks.size());
  bool va_failed = false;
  for (const auto& check : json["checks"]) {
    for (const char* key : {"name", "subject", "status", "seen", "fix"})
      EXPECT_TRUE(check.contains(key)) << key;
    if (check["name"] == "va-driver") va_failed = check["status"] == "fail";
  }
  EXPECT_TRUE(va_failed);
  EXPECT_NE(format_table(report).find("fix: "), std::string::npos);
}

}  // namespace
}  // namespace tc::doctor
