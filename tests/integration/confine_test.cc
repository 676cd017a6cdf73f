// `transcode run` cannot be turned against files it was not asked to write or read: a symlink
// planted at an output's temp name is refused (the file it points to is untouched), and an HLS
// playlist whose entries lead elsewhere is refused without opening them.
#include <gtest/gtest.h>
#include <algorithm>
#include <filesystem>
#include <fstream>

#include "service/common/exit_codes.h"
#include "tests/support/media_tools.h"

namespace tc::testing {
namespace {

namespace fs = std::filesystem;

const std::string kSecret = "a file the job must never write\n";

class ConfinedRun : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(media);
    fs::create_directories(outside);
    make_clip(input, {.seconds = 1});
    secret = outside + "/secret.txt";
    std::ofstream(secret) << kSecret;
  }
  // Nothing in the media directory but what the test put there (no output, no temp file).
  void expect_no_output(const std::vector<std::string>& expected) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(media))
      names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, expected);
  }

  TempDir dir;
  std::string media = dir / "media";
  std::string outside = dir / "outside";
  std::string input = media + "/in.mp4";
  std::string secret;
};

TEST_F(ConfinedRun, SymlinkPlantedAtTheTempNameIsNotWrittenThrough) {
  fs::create_symlink(secret, media + "/.out.mp4.partial");
  ProcessResult run = transcode({"run", input, media + "/out.mp4", "--quiet"});
  EXPECT_EQ(run.exit_code, kExitOutput) << run.err;
  EXPECT_NE(run.err.find("out.mp4"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("permission denied"), std::string::npos) << run.err;
  EXPECT_EQ(read_file(secret), kSecret);
  EXPECT_TRUE(fs::is_symlink(media + "/.out.mp4.partial"));  // left as it was: not ours
  expect_no_output({".out.mp4.partial", "in.mp4"});
}

TEST_F(ConfinedRun, StaleTempFileOfACrashedRunIsReplaced) {
  std::ofstream(media + "/.out.mp4.partial") << "half a file";
  ProcessResult run = transcode({"run", input, media + "/out.mp4", "--quiet"});
  EXPECT_EQ(run.exit_code, kExitOk) << run.err;
  std::optional<ProbeInfo> info = ffprobe(media + "/out.mp4");
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->video->frames, 30);
  expect_no_output({"in.mp4", "out.mp4"});
}

// Segments outside the playlist's directory, reached by an absolute path, "../" or a file://
// URL: the hls demuxer would open each by name. The playlist is refused as a whole.
TEST_F(ConfinedRun, HlsPlaylistsAreRefusedWhateverTheirEntries) {
  for (const std::string& prefix :
       {outside + "/", std::string("../outside/"), "file://" + outside + "/", std::string("")}) {
    SCOPED_TRACE(prefix);
    make_hls(input, outside, media + "/list.m3u8", prefix);
    ProcessResult run = transcode({"run", media + "/list.m3u8", media + "/out.mp4", "--quiet"});
    EXPECT_EQ(run.exit_code, kExitInput) << run.err;
    EXPECT_NE(run.err.find("list.m3u8"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("permission denied"), std::string::npos) << run.err;
    expect_no_output({"in.mp4", "list.m3u8"});
  }
}

TEST_F(ConfinedRun, SymlinkedInputAndRelativePathsStillWork) {
  // The caller's own links are followed: `transcode run` runs with the caller's permissions.
  fs::create_symlink(input, media + "/link.mp4");
  fs::path cwd = fs::current_path();
  fs::current_path(media);
  ProcessResult run = transcode({"run", "link.mp4", "out.mp4", "--quiet"});
  fs::current_path(cwd);
  EXPECT_EQ(run.exit_code, kExitOk) << run.err;
  EXPECT_TRUE(ffprobe(media + "/out.mp4").has_value());
}

}  // namespace
}  // namespace tc::testing
