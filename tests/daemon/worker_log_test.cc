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

#include "service/daemon/worker/worker_protocol.h"
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

// Issue 41, per-job logs: a warning is the job's own (its sink: the worker protocol's log
// line), not the daemon's; an error is both.
TEST(WorkerLog, AWarningGoesToTheJobsLogAndOnlyErrorsToTheDaemonsToo) {
  int level = av_log_get_level();
  av_log_set_level(AV_LOG_WARNING);
  route_libav_log();
  set_log_job("j-00000000000000bb");
  std::vector<std::pair<LogLevel, std::string>> job_lines;
  set_log_sink([&](LogLevel level, std::string_view text) {
    job_lines.emplace_back(level, std::string(text));
  });
  std::vector<std::string> lines = stderr_lines_of([] {
    av_log(nullptr, AV_LOG_WARNING, "a warning ");
    av_log(nullptr, AV_LOG_WARNING, "in two pieces\n");
    av_log(nullptr, AV_LOG_ERROR, "an error\n");
    av_log(nullptr, AV_LOG_INFO, "below the level\n");
  });
  set_log_sink({});
  av_log_set_callback(av_log_default_callback);
  av_log_set_level(level);
  EXPECT_EQ(lines, std::vector<std::string>{"worker: job j-00000000000000bb: an error"});
  ASSERT_EQ(job_lines.size(), 2u);
  EXPECT_EQ(job_lines[0],
            std::make_pair(LogLevel::kWarning, std::string("a warning in two pieces")));
  EXPECT_EQ(job_lines[1], std::make_pair(LogLevel::kError, std::string("an error")));
}

// A log line crosses the worker protocol as one JSON line, and what the daemon reads is a
// stored line's form whatever the worker sent: a newline escaped, invalid UTF-8 replaced, cut.
TEST(WorkerLog, ALogLineCrossesTheProtocolInItsStoredForm) {
  std::string line = worker_line(
      JobLogLine{0, 0, 1733440000123, LogLevel::kWarning, "bad\njob j-1: succeeded \xff 'q\""});
  EXPECT_EQ(line.find('\n'), std::string::npos);
  Result<WorkerMessage> read = parse_worker_line(line);
  ASSERT_TRUE(read.is_ok()) << read.status().message();
  EXPECT_EQ(read->kind, WorkerMessage::Kind::kLog);
  EXPECT_EQ(read->log.level, LogLevel::kWarning);
  EXPECT_EQ(read->log.time_ms, 1733440000123);
  EXPECT_EQ(read->log.text, "bad\\njob j-1: succeeded \xEF\xBF\xBD 'q\"");
  Result<WorkerMessage> forged =
      parse_worker_line(R"({"log": {"level": "warning", "text": "raw\nline", "time_ms": 1}})");
  ASSERT_TRUE(forged.is_ok()) << forged.status().message();
  EXPECT_EQ(forged->log.text, "raw\\nline");
  std::string wide = log_text(std::string(10000, 'x'));
  EXPECT_EQ(wide.size(), kLogLineBytes);
  EXPECT_TRUE(wide.ends_with("…(cut: 10000 bytes)")) << wide.substr(4000);
  EXPECT_FALSE(
      parse_worker_line(R"({"log": {"level": "loud", "text": "", "time_ms": 1}})").is_ok());
}

}  // namespace
}  // namespace tc::daemon
