// Issue 36: a worker's libav log lines reached the daemon's log unescaped, so an output name
// with a newline forged a "succeeded" line. Each message is one escaped line naming its job.
#include "service/daemon/worker/worker_log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

extern "C" {
#include <libavutil/log.h>
}

#include "tests/support/media_tools.h"

namespace tc::daemon {
namespace {

// What `log` wrote to stderr (the daemon's log, as a worker shares it), line by line.
template <typename Log>
std::vector<std::string> stderr_lines_of(Log log) {
  tc::testing::TempDir dir;
  std::string path = dir.path() + "/stderr";
  std::FILE* file = std::fopen(path.c_str(), "w");
  int saved = ::dup(STDERR_FILENO);
  ::dup2(::fileno(file), STDERR_FILENO);
  log();
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  std::fclose(file);
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(WorkerLog, ALibavMessageIsOneEscapedLineNamingItsJob) {
  int level = av_log_get_level();
  av_log_set_level(AV_LOG_ERROR);
  route_libav_log();
  set_log_job("j-00000000000000aa");
  std::vector<std::string> lines = stderr_lines_of([] {
    av_log(nullptr, AV_LOG_ERROR, "cannot write '%s'\n", "/m/out\njob j-1: succeeded\r.mp4");
    av_log(nullptr, AV_LOG_ERROR, "a message in ");  // pieces of one message: one line
    av_log(nullptr, AV_LOG_ERROR, "two pieces\n");
    av_log(nullptr, AV_LOG_INFO, "below the level: not logged\n");
  });
  av_log_set_callback(av_log_default_callback);
  av_log_set_level(level);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0],
            "worker: job j-00000000000000aa: cannot write '/m/out\\njob j-1: succeeded\\r.mp4'");
  EXPECT_EQ(lines[1], "worker: job j-00000000000000aa: a message in two pieces");
}

TEST(WorkerLog, TheJobIdIsEscapedToo) {
  EXPECT_EQ(worker_log_line("j\n1", "x"), "worker: job j\\n1: x\n");
}

}  // namespace
}  // namespace tc::daemon
