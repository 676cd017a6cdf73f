// Temp names per attempt: two attempts of one job (a node presumed dead and the one that took
// its job over) write the same output side by side, each to its own temp file or directory,
// and neither replaces, removes or publishes the other's.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "pipeline/exec/executor.h"
#include "pipeline/io/confined_path.h"
#include "pipeline/io/temp_file.h"
#include "pipeline/package/package_dir.h"

namespace tc {
namespace {

namespace fs = std::filesystem;

std::string contents(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void write_text(int fd, const std::string& text) {
  ASSERT_EQ(::write(fd, text.data(), text.size()), ssize_t(text.size()));
}

class AttemptTempNames : public ::testing::Test {
 protected:
  void SetUp() override {
    base = fs::temp_directory_path() / ("attempts-" + std::to_string(::getpid()));
    fs::remove_all(base);
    fs::create_directories(base);
    Result<io::Roots> opened = io::Roots::open_media_roots({base.string()});
    ASSERT_TRUE(opened.is_ok()) << opened.status().to_string();
    roots.emplace(std::move(opened).value());
  }
  void TearDown() override { fs::remove_all(base); }

  Result<io::TempFile> temp_file(const std::string& name, int attempt) {
    std::string path = (base / name).string();
    TC_ASSIGN_OR_RETURN(io::DirEntry dir, roots->open_output_dir(path));
    return io::TempFile::create(std::move(dir), path, attempt);
  }

  fs::path base;
  std::optional<io::Roots> roots;
};

TEST(PartialName, AttemptZeroIsTheRunCommandsNameAndEveryOtherAttemptIsTagged) {
  EXPECT_EQ(io::partial_name("out.mp4", 0), ".out.mp4.partial");
  EXPECT_EQ(io::partial_name("out.mp4", 1), ".out.mp4.a1.partial");
  EXPECT_EQ(io::partial_name("out.mp4", 12), ".out.mp4.a12.partial");
  EXPECT_EQ(partial_path("/media/show/out.mp4", 3), "/media/show/.out.mp4.a3.partial");
  EXPECT_EQ(partial_path("out.mp4", 0), ".out.mp4.partial");
  EXPECT_NE(io::partial_name("out.mp4", 1), io::partial_name("out.mp4", 11));
}

TEST_F(AttemptTempNames, TwoAttemptsWriteOneOutputSideBySide) {
  Result<io::TempFile> first = temp_file("out.mp4", 1);
  ASSERT_TRUE(first.is_ok()) << first.status().to_string();
  write_text(first->take_file().get(), "attempt 1");
  std::optional<io::TempFile> second;
  {
    Result<io::TempFile> created = temp_file("out.mp4", 2);
    ASSERT_TRUE(created.is_ok()) << created.status().to_string();
    second.emplace(std::move(created).value());
  }
  write_text(second->take_file().get(), "attempt 2");
  EXPECT_EQ(contents(base / ".out.mp4.a1.partial"), "attempt 1") << "attempt 2 replaced it";
  EXPECT_EQ(contents(base / ".out.mp4.a2.partial"), "attempt 2");
  ASSERT_TRUE(second->publish().is_ok());
  EXPECT_EQ(contents(base / "out.mp4"), "attempt 2");
  EXPECT_EQ(contents(base / ".out.mp4.a1.partial"), "attempt 1") << "publishing 2 touched 1's";
  // Attempt 1 ends unpublished: it removes its own temp file, never the published output.
  { io::TempFile discarded = std::move(first).value(); }
  EXPECT_FALSE(fs::exists(base / ".out.mp4.a1.partial"));
  EXPECT_EQ(contents(base / "out.mp4"), "attempt 2");
}

TEST_F(AttemptTempNames, TwoAttemptsBuildOnePackageSideBySide) {
  std::string dir = (base / "pkg").string();
  auto first = package::PackageDir::create(*roots, dir, 1);
  ASSERT_TRUE(first.is_ok()) << first.status().to_string();
  auto second = package::PackageDir::create(*roots, dir, 2);
  ASSERT_TRUE(second.is_ok()) << second.status().to_string();
  ASSERT_TRUE((*first)->write_file("master.m3u8", "attempt 1").is_ok());
  ASSERT_TRUE((*second)->write_file("master.m3u8", "attempt 2").is_ok());
  EXPECT_EQ(contents(base / ".pkg.a1.partial/master.m3u8"), "attempt 1");
  EXPECT_EQ(contents(base / ".pkg.a2.partial/master.m3u8"), "attempt 2");
  first->reset();  // attempt 1 gives up: its directory goes, attempt 2's stays
  EXPECT_FALSE(fs::exists(base / ".pkg.a1.partial"));
  EXPECT_EQ(contents(base / ".pkg.a2.partial/master.m3u8"), "attempt 2");
  ASSERT_TRUE((*second)->publish().is_ok());
  EXPECT_EQ(contents(base / "pkg/master.m3u8"), "attempt 2");
  EXPECT_FALSE(fs::exists(base / ".pkg.a2.partial"));
}

}  // namespace
}  // namespace tc
