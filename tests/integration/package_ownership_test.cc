// `transcode run --package-dir` and `--thumbnails` replace only what this program wrote (issue
// 36): the input's folder, a parent of the input, a user's folder, a folder with a file system
// mounted inside, a user's thumbnails.vtt or sheet_1.jpg are refused (exit 6, the error names
// the directory or file) and left exactly as they were; the program's own earlier package is
// replaced. And ASS text reaches WebVTT escaped, an event ending before it starts dropped.
#include <gtest/gtest.h>
#include <sys/mount.h>

#include <cerrno>
#include <cstring>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "service/common/exit_codes.h"
#include "tests/support/media_tools.h"

namespace tc::testing {
namespace {

class PackageOwnership : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    shared_ = new TempDir();
    make_clip(*shared_ / "clip.mp4", {.width = 160, .height = 120, .seconds = 3, .audio = false});
  }
  static void TearDownTestSuite() { delete shared_; }

  // Copies the shared clip to `path` (its folder made): the input of a run.
  std::string input_at(const std::string& path) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::filesystem::copy_file(*shared_ / "clip.mp4", path);
    return path;
  }
  ProcessResult package_into(const std::string& input, const std::string& dir,
                             const std::string& rendition = "a") {
    return transcode({"run", input, "--package", "hls", "--package-dir", dir, "--segment", "1",
                      "-o", rendition, "--size", "160x120"});
  }
  // A refusal as a user sees it: exit 6, the directory named, "not replaced".
  void expect_refused(const ProcessResult& run, const std::string& named) {
    EXPECT_EQ(run.exit_code, kExitOutput) << run.err;
    EXPECT_NE(run.err.find(named + ": not replaced"), std::string::npos) << run.err;
  }

  TempDir dir_;
  static TempDir* shared_;
};

TempDir* PackageOwnership::shared_ = nullptr;

TEST_F(PackageOwnership, TheInputsOwnFolderIsRefusedAndKept) {
  std::string folder = dir_ / "media";
  std::string input = input_at(folder + "/in.mp4");
  expect_refused(package_into(input, folder), folder);
  EXPECT_EQ(read_file(input), read_file(*shared_ / "clip.mp4")) << "the input is gone";
  EXPECT_EQ(dir_.entries(), std::vector<std::string>{"media"});
}

TEST_F(PackageOwnership, AParentOfTheInputIsRefusedAndKept) {
  std::string input = input_at(dir_ / "library/show/in.mp4");
  expect_refused(package_into(input, dir_ / "library"), dir_ / "library");
  EXPECT_TRUE(file_exists(input)) << "the input is gone";
}

TEST_F(PackageOwnership, AUsersFolderKeepsEveryFile) {
  std::string input = input_at(dir_ / "in.mp4");
  std::filesystem::create_directories(dir_ / "videos/holiday");
  dir_.file("videos/notes.txt", "mine");
  dir_.file("videos/holiday/a.mp4", "also mine");
  expect_refused(package_into(input, dir_ / "videos"), dir_ / "videos");
  EXPECT_EQ(read_file(dir_ / "videos/notes.txt"), "mine");
  EXPECT_EQ(read_file(dir_ / "videos/holiday/a.mp4"), "also mine");
}

TEST_F(PackageOwnership, AnEarlierPackageIsReplacedWithOnlyItsOwnFiles) {
  std::string input = input_at(dir_ / "in.mp4");
  ProcessResult first = package_into(input, dir_ / "pkg", "first");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  nlohmann::json marker = nlohmann::json::parse(read_file(dir_ / "pkg/.transcoded-package.json"));
  EXPECT_EQ(marker["format"], "transcode-package");
  ProcessResult second = package_into(input, dir_ / "pkg", "second");
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_FALSE(file_exists(dir_ / "pkg/first/init.mp4")) << "the earlier package stayed";
  EXPECT_TRUE(file_exists(dir_ / "pkg/second/init.mp4"));
  EXPECT_EQ(dir_.entries(), (std::vector<std::string>{"in.mp4", "pkg"}));
}

TEST_F(PackageOwnership, AFileAddedToAnEarlierPackageIsNotRemoved) {
  std::string input = input_at(dir_ / "in.mp4");
  ASSERT_EQ(package_into(input, dir_ / "pkg").exit_code, 0);
  dir_.file("pkg/a/my-edit.txt", "mine");
  ProcessResult again = package_into(input, dir_ / "pkg");
  expect_refused(again, dir_ / "pkg");
  EXPECT_NE(again.err.find("my-edit.txt"), std::string::npos) << again.err;
  EXPECT_EQ(read_file(dir_ / "pkg/a/my-edit.txt"), "mine");
}

// A directory at the package's temp name that this program did not make (no partial marker in
// it) is not taken for a crashed run's partial package.
TEST_F(PackageOwnership, ADirectoryAtTheTempNameIsNotTakenForOurs) {
  std::string input = input_at(dir_ / "in.mp4");
  std::filesystem::create_directories(dir_ / ".pkg.partial");
  dir_.file(".pkg.partial/mine.txt", "mine");
  ProcessResult run = package_into(input, dir_ / "pkg");
  EXPECT_EQ(run.exit_code, kExitOutput) << run.err;
  EXPECT_NE(run.err.find(".pkg.partial is in the way"), std::string::npos) << run.err;
  EXPECT_EQ(read_file(dir_ / ".pkg.partial/mine.txt"), "mine");
}

// Unmounts what it mounted, whatever the test's outcome, before the TempDir goes.
struct Mounted {
  std::string at;
  bool ok = false;
  Mounted(const std::string& path) : at(path) {
    ok = ::mount("tc-test", at.c_str(), "tmpfs", 0, "size=1m") == 0;
  }
  ~Mounted() {
    if (ok) ::umount2(at.c_str(), MNT_DETACH);
  }
};

TEST_F(PackageOwnership, AFileSystemMountedInsideIsNeverEntered) {
  std::string input = input_at(dir_ / "in.mp4");
  ASSERT_EQ(package_into(input, dir_ / "pkg").exit_code, 0);
  std::filesystem::create_directories(dir_ / "pkg/a/disk");
  Mounted disk(dir_ / "pkg/a/disk");
  if (!disk.ok) GTEST_SKIP() << "cannot mount a tmpfs here (not root?): " << std::strerror(errno);
  dir_.file("pkg/a/disk/kept.bin", "on the other disk");
  ProcessResult again = package_into(input, dir_ / "pkg");
  expect_refused(again, dir_ / "pkg");
  EXPECT_NE(again.err.find("mounted"), std::string::npos) << again.err;
  EXPECT_EQ(read_file(dir_ / "pkg/a/disk/kept.bin"), "on the other disk");
}

TEST_F(PackageOwnership, AMountPointIsNotReplaced) {
  std::string input = input_at(dir_ / "in.mp4");
  ASSERT_EQ(package_into(input, dir_ / "pkg").exit_code, 0);
  std::filesystem::create_directories(dir_ / "mnt");
  Mounted disk(dir_ / "mnt");
  if (!disk.ok) GTEST_SKIP() << "cannot mount a tmpfs here (not root?): " << std::strerror(errno);
  // Even an exact copy of our package, marker and all, on a mount point of its own.
  std::filesystem::copy(dir_ / "pkg", dir_ / "mnt", std::filesystem::copy_options::recursive);
  expect_refused(package_into(input, dir_ / "mnt"), dir_ / "mnt");
  EXPECT_TRUE(file_exists(dir_ / "mnt/a/init.mp4"));
}

class ThumbnailOwnership : public PackageOwnership {
 protected:
  ProcessResult thumbnails_beside(const std::string& output, const std::string& grid = "5x5") {
    return transcode({"run", *shared_ / "clip.mp4", output, "--size", "160x120", "--thumbnails",
                      "1", "--thumbnail-size", "32x0", "--thumbnail-grid", grid});
  }
};

TEST_F(ThumbnailOwnership, AUsersIndexBesideTheOutputSurvives) {
  dir_.file("thumbnails.vtt", "WEBVTT\n\nmy own chapters\n");
  ProcessResult run = thumbnails_beside(dir_ / "out.mp4");
  EXPECT_EQ(run.exit_code, kExitOutput) << run.err;
  EXPECT_NE(run.err.find(dir_ / "thumbnails.vtt: not replaced"), std::string::npos) << run.err;
  EXPECT_EQ(read_file(dir_ / "thumbnails.vtt"), "WEBVTT\n\nmy own chapters\n");
  EXPECT_EQ(dir_.entries(), std::vector<std::string>{"thumbnails.vtt"});
}

TEST_F(ThumbnailOwnership, AUsersSheetBesideTheOutputSurvives) {
  dir_.file("sheet_1.jpg", "my picture");
  ProcessResult run = thumbnails_beside(dir_ / "out.mp4");
  EXPECT_EQ(run.exit_code, kExitOutput) << run.err;
  EXPECT_NE(run.err.find(dir_ / "sheet_1.jpg: not replaced"), std::string::npos) << run.err;
  EXPECT_EQ(read_file(dir_ / "sheet_1.jpg"), "my picture");
}

// Three sheets of one tile, then one sheet of three: the earlier sheets 2 and 3 go (the new
// index does not name them), and a third run over the second's thumbnails succeeds.
TEST_F(ThumbnailOwnership, ItsOwnEarlierThumbnailsAreReplaced) {
  ProcessResult first = thumbnails_beside(dir_ / "out.mp4", "1x1");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ASSERT_TRUE(file_exists(dir_ / "sheet_3.jpg"));
  ProcessResult second = thumbnails_beside(dir_ / "out.mp4");
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(dir_.entries(), (std::vector<std::string>{"out.mp4", "sheet_1.jpg", "thumbnails.vtt"}));
  ProcessResult third = thumbnails_beside(dir_ / "out.mp4");
  EXPECT_EQ(third.exit_code, 0) << third.err;
}

// An ASS track with markup-like text and an event whose end is before its start, muxed (as
// the ffmpeg CLI re-encodes ASS) into Matroska with that end kept: 2^32 - 2500 ms long.
TEST_F(PackageOwnership, AssTextIsEscapedAndABackwardsEventDropped) {
  std::ofstream(dir_ / "subs.ass")
      << "[Script Info]\nScriptType: v4.00+\n\n[V4+ Styles]\nFormat: Name, Fontname, Fontsize, "
         "PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, "
         "StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, "
         "MarginL, MarginR, MarginV, Encoding\nStyle: Default,Arial,20,&H00FFFFFF,&H000000FF,"
         "&H00000000,&H00000000,0,0,0,0,100,100,0,0,1,1,0,2,10,10,10,1\n\n[Events]\nFormat: "
         "Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n"
         "Dialogue: 0,0:00:00.50,0:00:01.50,Default,,0,0,0,,Tom <b>& Jerry > {\\b1}2{\\b0}\n"
         "Dialogue: 0,0:00:02.00,0:00:00.50,Default,,0,0,0,,Backwards\n";
  ProcessResult made = run_process({"ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-i",
                                    *shared_ / "clip.mp4", "-i", dir_ / "subs.ass", "-map", "0",
                                    "-map", "1", "-c:v", "copy", "-c:s", "ass", dir_ / "in.mkv"});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  ProcessResult run = package_into(dir_ / "in.mkv", dir_ / "pkg");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::string all;
  for (const auto& entry : std::filesystem::directory_iterator(dir_ / "pkg/subs_1"))
    if (entry.path().extension() == ".vtt") all += read_file(entry.path());
  EXPECT_NE(all.find("Tom &lt;b&gt;&amp; Jerry &gt; <b>2</b>"), std::string::npos) << all;
  EXPECT_EQ(all.find("Backwards"), std::string::npos) << all;
  EXPECT_EQ(all.find("1193:"), std::string::npos) << all;
}

}  // namespace
}  // namespace tc::testing
