// Test support for the daemon: a real `transcoded` process (loopback port or unix socket), the
// real `transcode` client run as a process, media made by the ffmpeg CLI and checked by ffprobe.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <string>

#include <vector>
#include "tests/support/media_tools.h"

namespace tc::test {

std::string env_or_die(const char* name);

using tc::testing::TempDir;

// A daemon process. start() waits for its "listening ADDR" line.
class Daemon {
 public:
  Daemon(std::string state_dir, std::string media_root)
      : state_dir_(std::move(state_dir)), media_root_(std::move(media_root)) {}
  ~Daemon();
  // `listen`: "127.0.0.1:0" or "unix:PATH". `fault`: TC_TEST_FAULT for it ("" = none).
  bool start(const std::vector<std::string>& extra_args = {}, const std::string& fault = "",
             const std::string& listen = "127.0.0.1:0");
  // SIGTERM (graceful) or SIGKILL; returns the wait status.
  int stop(int signal_number);
  const std::string& address() const { return address_; }
  // "127.0.0.1:PORT" when started with --metrics-listen; empty otherwise.
  const std::string& metrics_address() const { return metrics_address_; }
  pid_t pid() const { return pid_; }
  // The daemon's stderr (its log) goes to `path` from the next start(); empty = the test's.
  void log_to(std::string path) { log_file_ = std::move(path); }

 private:
  std::string state_dir_;
  std::string media_root_;
  std::string address_;
  std::string metrics_address_;
  pid_t pid_ = -1;
  std::string log_file_;
};

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `transcode ARGS...` and captures its output.
CommandResult run_client(const std::vector<std::string>& args);
// GET http://ADDRESS/PATH (HTTP/1.0, plain TCP): the body, or empty on any failure.
std::string http_get(const std::string& address, const std::string& path);

// The processes whose parent is `parent` (a daemon's workers and its zygote), from /proc.
std::vector<pid_t> children_of(pid_t parent);
// What /proc/PID/comm says: "tc-zygote", "tc-worker" (forked by it), "transcoded" (executed).
std::string process_name(pid_t pid);
// A daemon's workers: its children but its zygote. Its zygote: -1 if it has none.
std::vector<pid_t> workers_of(pid_t daemon);
pid_t zygote_of(pid_t daemon);

// Runs a shell command; its exit status.
int shell(const std::string& command);

// A small clip: 320x240 testsrc2 with a sine tone, H.264/AAC in MP4.
bool make_clip(const std::string& path, double seconds = 1);
// The number of video frames ffprobe reads from `path`; 0 when it is not valid media.
int video_frames(const std::string& path);
// Files in `dir` whose names end in ".partial".
std::vector<std::string> partial_files(const std::string& dir);

// Polls `done` until it holds or `timeout` passes (tests never assert on time; they wait).
bool wait_until(const std::function<bool()>& done,
                std::chrono::seconds timeout = std::chrono::seconds(120));

}  // namespace tc::test
