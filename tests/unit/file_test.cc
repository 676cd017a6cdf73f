// The common layer: read_file and ScopedFd.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>

#include "pipeline/core/fd.h"
#include "pipeline/core/file.h"

namespace tc {
namespace {

TEST(ReadFile, ReadsTheWholeFile) {
  std::string path = ::testing::TempDir() + "/read_file_test.bin";
  std::string bytes(10000, 'x');
  bytes[5000] = '\0';  // binary-safe, longer than one read
  std::ofstream(path, std::ios::binary) << bytes;
  Result<std::string> text = read_file(path);
  ASSERT_TRUE(text.is_ok()) << text.status().message();
  EXPECT_EQ(*text, bytes);
  ::unlink(path.c_str());
}

TEST(ReadFile, ErrorNamesThePathAndTheReasonAndKeepsErrno) {
  Result<std::string> missing = read_file("/no/such/file");
  ASSERT_FALSE(missing.is_ok());
  EXPECT_EQ(errno, ENOENT);
  EXPECT_EQ(missing.status().message(), "cannot read /no/such/file: No such file or directory");
  Result<std::string> directory = read_file("/");
  ASSERT_FALSE(directory.is_ok());
  EXPECT_EQ(errno, EISDIR);
  EXPECT_NE(directory.status().message().find("Is a directory"), std::string::npos);
  EXPECT_EQ(read_file_or_empty("/no/such/file"), "");
}

bool is_open(int fd) {
  return ::fcntl(fd, F_GETFD) != -1;
}

TEST(ScopedFd, ClosesOnceAndMovesOwnership) {
  int raw = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(raw, 0);
  {
    ScopedFd first(raw);
    ScopedFd second(std::move(first));
    EXPECT_FALSE(first.is_open());
    EXPECT_EQ(second.get(), raw);
    EXPECT_TRUE(is_open(raw));
  }
  EXPECT_FALSE(is_open(raw));

  int kept = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  { EXPECT_EQ(ScopedFd(kept).release(), kept); }
  EXPECT_TRUE(is_open(kept));
  ::close(kept);
}

}  // namespace
}  // namespace tc
