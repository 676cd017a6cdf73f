// package_marker.h: which existing directory a new package may replace, and what of it is removed.
#include "pipeline/package/package_marker.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "pipeline/core/fd.h"

namespace tc::package {
namespace {

namespace fs = std::filesystem;

// A fresh directory, removed whole at the end.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "package-marker-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data()) ? pattern : "";
  }
  ~TempDir() { fs::remove_all(path_); }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

class PackageMarker : public ::testing::Test {
 protected:
  void SetUp() override { parent_ = ScopedFd(::open(dir_.path().c_str(), O_RDONLY | O_DIRECTORY)); }
  // A package "pkg" holding `files` and a marker listing them.
  void make_package(const std::vector<std::string>& files) {
    for (const std::string& file : files) {
      fs::create_directories(fs::path(dir_ / "pkg/" + file).parent_path());
      std::ofstream(dir_ / "pkg/" + file) << "x";
    }
    std::ofstream(dir_ / "pkg/.transcoded-package.json") << marker_text(files);
  }
  Status check(std::vector<std::string>* listed = nullptr) {
    return check_replaceable(parent_.get(), "pkg", dir_ / "pkg", listed);
  }

  TempDir dir_;
  ScopedFd parent_;
};

TEST_F(PackageMarker, NothingThereOrOurOwnPackageMayBeReplaced) {
  EXPECT_TRUE(check().is_ok());
  make_package({"master.m3u8", "a/init.mp4", "a/seg_00001.m4s"});
  std::vector<std::string> listed;
  Status status = check(&listed);
  EXPECT_TRUE(status.is_ok()) << status.message();
  EXPECT_EQ(listed, (std::vector<std::string>{"master.m3u8", "a/init.mp4", "a/seg_00001.m4s"}));
  EXPECT_EQ(remove_listed(parent_.get(), "pkg", listed), 0);
  EXPECT_FALSE(fs::exists(dir_ / "pkg"));
}

TEST_F(PackageMarker, AMarkerThatIsNotOursIsRefused) {
  make_package({"a/init.mp4"});
  std::string marker = dir_ / "pkg/.transcoded-package.json";
  for (const std::string& text :
       {std::string("not json"),
        std::string(R"({"format":"transcode-package","version":2,"files":[]})"),
        std::string(R"({"format":"other","version":1,"files":[]})"),
        std::string(R"({"format":"transcode-package","version":1,"files":["../x"]})"),
        std::string(R"({"format":"transcode-package","version":1,"files":["/etc/passwd"]})"),
        std::string(2 << 20, ' ')}) {
    std::ofstream(marker, std::ios::trunc) << text;
    Status status = check();
    EXPECT_EQ(status.code(), Code::kOutput) << text.substr(0, 80);
    EXPECT_NE(status.message().find(dir_ / "pkg: not replaced"), std::string::npos)
        << status.message();
  }
  fs::remove(marker);
  std::ofstream(dir_ / "elsewhere.json") << marker_text({"a/init.mp4"});
  fs::create_symlink(dir_ / "elsewhere.json", marker);
  EXPECT_EQ(check().code(), Code::kOutput) << "a symlinked marker was followed";
}

TEST_F(PackageMarker, AnythingTheMarkerDoesNotListIsRefused) {
  make_package({"a/init.mp4"});
  fs::create_directories(dir_ / "pkg/b");
  Status empty_dir = check();
  EXPECT_NE(empty_dir.message().find("pkg/b/"), std::string::npos) << empty_dir.message();
  fs::remove(dir_ / "pkg/b");
  std::ofstream(dir_ / "pkg/a/mine.txt") << "mine";
  Status file = check();
  EXPECT_NE(file.message().find("pkg/a/mine.txt"), std::string::npos) << file.message();
  fs::remove(dir_ / "pkg/a/mine.txt");
  fs::create_symlink("/", dir_ / "pkg/a/link");
  EXPECT_EQ(check().code(), Code::kOutput);
}

TEST_F(PackageMarker, RemovalLeavesWhatAppearedSinceTheCheck) {
  make_package({"a/init.mp4"});
  std::vector<std::string> listed;
  ASSERT_TRUE(check(&listed).is_ok());
  std::ofstream(dir_ / "pkg/a/late.txt") << "mine";
  EXPECT_EQ(remove_listed(parent_.get(), "pkg", listed), ENOTEMPTY);
  EXPECT_TRUE(fs::exists(dir_ / "pkg/a/late.txt"));
  EXPECT_FALSE(fs::exists(dir_ / "pkg/a/init.mp4"));
}

}  // namespace
}  // namespace tc::package
