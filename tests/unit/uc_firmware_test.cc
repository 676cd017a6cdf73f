// The HuC/GuC reader (pipeline/hw/uc_firmware.h) against fake debugfs trees: which GT it reads,
// what it says when the firmware does not run, and why it does not know when nothing answers.
#include "pipeline/hw/uc_firmware.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

namespace tc {
namespace {

namespace fs = std::filesystem;

class FakeDebugfs : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "uc-firmware-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    debugfs_ = (root_ / "debug").string();
    // A node that cannot be opened: no ioctl answers, debugfs alone decides.
    node_ = (root_ / "dev/dri/renderD128").string();
  }
  void TearDown() override { fs::remove_all(root_); }

  void write(const std::string& relative, const std::string& text) {
    fs::path path = fs::path(debugfs_) / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  UcReading huc(const std::string& driver = "xe") {
    return read_uc_firmware(UcFirmware::kHuc, debugfs_, node_, driver, -1);
  }

  fs::path root_;
  std::string debugfs_;
  std::string node_;
};

TEST_F(FakeDebugfs, HucRunningOnTheMediaGtIsRunning) {
  write("dri/0/gt0/uc/huc_info", "HuC firmware: not supported\n");
  write("dri/0/gt1/uc/huc_info", "HuC firmware: xe/lnl_huc.bin\n\tstatus: RUNNING\n");
  UcReading reading = huc();
  EXPECT_EQ(reading.state, UcState::kRunning);
  EXPECT_EQ(reading.source, UcSource::kDebugfs);
  EXPECT_EQ(reading.where, debugfs_ + "/dri/0/gt1/uc/huc_info");
  EXPECT_EQ(reading.summary(), "debugfs " + debugfs_ + "/dri/0/gt1/uc/huc_info: RUNNING");
}

TEST_F(FakeDebugfs, HucDisabledIsNotRunningAndSaysWhereEveryGtStands) {
  write("dri/0/gt0/uc/huc_info", "HuC firmware: not supported\n");
  write("dri/0/gt1/uc/huc_info", "HuC firmware: xe/lnl_huc.bin\n\tstatus: DISABLED\n");
  UcReading reading = huc();
  EXPECT_EQ(reading.state, UcState::kNotRunning);
  EXPECT_EQ(reading.said, "");  // gt0 has no status line: the first GT is what is shown
  EXPECT_EQ(reading.summary(), "debugfs " + debugfs_ + "/dri/0/gt0/uc/huc_info: no status; " +
                                   debugfs_ + "/dri/0/gt1/uc/huc_info: DISABLED");
}

TEST_F(FakeDebugfs, OlderKernelsNameTheDirectoryByTheRenderMinorAndSayLoadSuccess) {
  write("dri/128/gt/uc/huc_info", "HuC firmware: i915/kbl_huc.bin\n\tstatus load: SUCCESS\n");
  UcReading reading = huc("i915");
  EXPECT_EQ(reading.state, UcState::kRunning);
  EXPECT_EQ(reading.said, "SUCCESS");
}

TEST_F(FakeDebugfs, GucIsReadFromItsOwnFile) {
  write("dri/0/gt0/uc/huc_info", "HuC firmware: i915/tgl_huc.bin\n\tstatus: RUNNING\n");
  write("dri/0/gt0/uc/guc_info", "GuC firmware: i915/tgl_guc_70.bin\n\tstatus: LOAD_FAIL\n");
  UcReading reading = read_uc_firmware(UcFirmware::kGuc, debugfs_, node_, "i915", -1);
  EXPECT_EQ(reading.state, UcState::kNotRunning);
  EXPECT_EQ(reading.said, "LOAD_FAIL");
}

TEST_F(FakeDebugfs, NoDebugfsIsUnknownSayingWhy) {
  UcReading reading = huc();
  EXPECT_EQ(reading.state, UcState::kUnknown);
  EXPECT_EQ(reading.source, UcSource::kNone);
  EXPECT_EQ(reading.summary(),
            debugfs_ +
                "/dri is not readable (debugfs is not mounted, or needs root): HuC state "
                "unknown");
}

TEST_F(FakeDebugfs, DebugfsWithoutTheFileIsUnknownNamingTheDirectory) {
  write("dri/0/name", "xe dev=0000:03:00.0\n");
  UcReading reading = huc();
  EXPECT_EQ(reading.state, UcState::kUnknown);
  EXPECT_EQ(reading.unknown_why,
            "no gt*/uc/huc_info under " + debugfs_ + "/dri/0 (kernel does not show it)");
}

}  // namespace
}  // namespace tc
