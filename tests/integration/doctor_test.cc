// `transcode doctor` end to end: on this machine (no GPU, no /dev/dri on the test hosts) it says
// so, lists what it checked and exits 5; with a DRI directory given it looks there.
#include <gtest/gtest.h>
#include <unistd.h>

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
