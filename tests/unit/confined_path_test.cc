// Opening below a root, both ways the kernel allows (openat2, and the O_NOFOLLOW walk kept for
// kernels and seccomp profiles without it), and the output temp file's rules.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>

#include "pipeline/io/confined_path.h"
#include "pipeline/io/temp_file.h"

namespace tc::io {
namespace {

namespace fs = std::filesystem;

class Beneath : public ::testing::TestWithParam<Resolver> {
 protected:
  void SetUp() override {
    base = fs::temp_directory_path() / ("confined-" + std::to_string(::getpid()));
    fs::remove_all(base);
    fs::create_directories(base / "root/dir");
    fs::create_directories(base / "outside");
    std::ofstream(base / "root/dir/file") << "inside";
    std::ofstream(base / "outside/secret") << "outside";
    fs::create_symlink(base / "outside/secret", base / "root/dir/link");
    fs::create_directory_symlink(base / "outside", base / "root/linkdir");
    root.reset(::open((base / "root").c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    ASSERT_TRUE(root.is_open());
  }
  void TearDown() override { fs::remove_all(base); }
  int open_error(const std::string& relative, int flags = O_RDONLY) {
    ScopedFd fd = open_beneath(root.get(), relative, flags, GetParam());
    return fd.is_open() ? 0 : errno;
  }

  fs::path base;
  ScopedFd root;
};

TEST_P(Beneath, OpensWhatIsBelowTheRoot) {
  EXPECT_EQ(open_error("dir/file"), 0);
  EXPECT_EQ(open_error("./dir//file"), 0);
  EXPECT_EQ(open_error("dir", O_PATH | O_DIRECTORY), 0);
  EXPECT_EQ(open_error("dir/missing"), ENOENT);
}

TEST_P(Beneath, RefusesSymlinksAndDotDot) {
  EXPECT_EQ(open_error("dir/link"), ELOOP);
  EXPECT_EQ(open_error("linkdir/secret"), ELOOP);
  EXPECT_EQ(open_error("linkdir", O_PATH | O_DIRECTORY), ELOOP);
  EXPECT_EQ(open_error("../outside/secret"), EXDEV);
  EXPECT_EQ(open_error("dir/../../outside/secret"), EXDEV);
  EXPECT_EQ(open_error("/etc/passwd"), EXDEV);
}

INSTANTIATE_TEST_SUITE_P(Resolvers, Beneath, ::testing::Values(Resolver::kAuto, Resolver::kWalk),
                         [](const auto& info) {
                           return info.param == Resolver::kAuto ? "Openat2" : "Walk";
                         });

TEST(Roots, InputsAndOutputDirectoriesOutsideAreDenied) {
  fs::path base = fs::temp_directory_path() / ("roots-" + std::to_string(::getpid()));
  fs::create_directories(base / "media");
  std::ofstream(base / "media/in.mp4") << "x";
  fs::create_directory_symlink(base, base / "media/up");
  Result<Roots> roots = Roots::open_media_roots({(base / "media").string()});
  ASSERT_TRUE(roots.is_ok()) << roots.status().to_string();
  EXPECT_TRUE(roots->open_input((base / "media/in.mp4").string()).is_ok());
  for (const std::string& path :
       {(base / "elsewhere.mp4").string(), (base / "media/../in.mp4").string(),
        std::string("in.mp4"), (base / "media/up/media/in.mp4").string()}) {
    Result<ScopedFd> opened = roots->open_input(path);
    ASSERT_FALSE(opened.is_ok()) << path;
    EXPECT_EQ(opened.status().code(), Code::kInput);
    EXPECT_NE(opened.status().message().find("permission denied"), std::string::npos)
        << opened.status().message();
  }
  Result<DirEntry> out = roots->open_output_dir((base / "media/up/o.mp4").string());
  ASSERT_FALSE(out.is_ok());
  EXPECT_EQ(out.status().code(), Code::kOutput);
  EXPECT_NE(out.status().message().find("o.mp4"), std::string::npos);
  fs::remove_all(base);
}

TEST(TempFile, PublishesByRenameAndRemovesWhatIsNotPublished) {
  fs::path base = fs::temp_directory_path() / ("temp-" + std::to_string(::getpid()));
  fs::create_directories(base);
  Result<Roots> roots = Roots::open_media_roots({base.string()});
  ASSERT_TRUE(roots.is_ok());
  auto create = [&](const std::string& name) {
    std::string path = (base / name).string();
    return TempFile::create(std::move(roots->open_output_dir(path)).value(), path, 0);
  };
  {
    Result<TempFile> temp = create("a.mp4");
    ASSERT_TRUE(temp.is_ok()) << temp.status().to_string();
    EXPECT_TRUE(fs::exists(base / ".a.mp4.partial"));
    ASSERT_TRUE(temp->publish().is_ok());
  }
  EXPECT_TRUE(fs::exists(base / "a.mp4"));
  EXPECT_FALSE(fs::exists(base / ".a.mp4.partial"));
  {
    Result<TempFile> temp = create("b.mp4");
    ASSERT_TRUE(temp.is_ok());
  }
  EXPECT_FALSE(fs::exists(base / ".b.mp4.partial"));
  EXPECT_FALSE(fs::exists(base / "b.mp4"));
  fs::remove_all(base);
}

}  // namespace
}  // namespace tc::io
