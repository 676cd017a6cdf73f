// A job cannot leave the daemon's media roots, whatever happens to its paths between CreateJob
// (which checks them) and the worker (which opens them): an output directory or an input
// swapped for a symlink while the job is queued, a symlink planted at the output's temp name,
// an HLS playlist whose entries lead out. Each job fails naming its path; the files outside
// stay byte-identical and nothing is left in the output directory.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "daemon_fixture.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace tc::test;

namespace {

const std::string kSecret = "a file the job must never write\n";

class Confinement : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(media + "/out");
    fs::create_directories(outside);
    ASSERT_TRUE(make_clip(input));
    std::ofstream(secret) << kSecret;
  }

  CommandResult client(std::vector<std::string> args) {
    args.insert(args.end(), {"--server", daemon.address()});
    return run_client(args);
  }
  std::string submit(const std::string& in, const std::string& out) {
    CommandResult r = client({"submit", in, out});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out.substr(0, r.out.find('\n'));
  }
  json job(const std::string& id) {
    CommandResult r = client({"get", id, "--json"});
    return r.exit_code == 0 ? json::parse(r.out, nullptr, false) : json::object();
  }
  // One slot, taken by a slow job: what is submitted next waits in the queue until `swap`
  // has run, then the slow job is cancelled so that the next one runs.
  std::string submit_then_swap(const std::string& in, const std::string& out,
                               const std::function<void()>& swap) {
    EXPECT_TRUE(daemon.start({"--slots", "1"}, "slow:slow_"));
    std::string slow_input = media + "/slow_in.mp4";
    EXPECT_TRUE(make_clip(slow_input, 3));
    std::string slow = submit(slow_input, media + "/slow.mp4");
    EXPECT_TRUE(wait_until([&] { return job(slow).value("state", "") == "JOB_STATE_RUNNING"; }));
    std::string queued = submit(in, out);
    EXPECT_EQ(job(queued).value("state", ""), "JOB_STATE_QUEUED");
    swap();
    EXPECT_EQ(client({"cancel", slow}).exit_code, 0);
    return queued;
  }
  // Waits for the job's end: failed with `code`, its message naming `path` and saying why.
  void expect_refused(const std::string& id, const std::string& code, const std::string& path) {
    EXPECT_EQ(client({"watch", id, "--quiet"}).exit_code, code == "ERROR_CODE_INPUT" ? 3 : 6);
    json record = job(id);
    EXPECT_EQ(record.value("state", ""), "JOB_STATE_FAILED");
    json error = record.value("error", json::object());
    EXPECT_EQ(error.value("code", ""), code);
    std::string message = error.value("message", "");
    EXPECT_NE(message.find(path), std::string::npos) << message;
    EXPECT_NE(message.find("permission denied"), std::string::npos) << message;
  }
  // Nothing outside changed; `out_dir` holds exactly `names`.
  void expect_untouched(const std::vector<std::string>& names) {
    EXPECT_EQ(tc::testing::read_file(secret), kSecret);
    EXPECT_EQ(names_in(media + "/out"), names);
  }
  static std::vector<std::string> names_in(const std::string& path) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(path))
      names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  TempDir dir;
  std::string media = dir.path() + "/media";
  std::string outside = dir.path() + "/outside";
  std::string input = media + "/in.mp4";
  std::string secret = outside + "/secret.txt";
  Daemon daemon{dir.path() + "/state", media};
};

TEST_F(Confinement, OutputDirectorySwappedForASymlinkWhileQueued) {
  std::string id = submit_then_swap(input, media + "/out/o.mp4", [&] {
    fs::rename(media + "/out", media + "/out.before");
    fs::create_directory_symlink(outside, media + "/out");
  });
  expect_refused(id, "ERROR_CODE_OUTPUT", "o.mp4");
  EXPECT_EQ(names_in(outside), std::vector<std::string>{"secret.txt"});
  fs::remove(media + "/out");  // the symlink
  fs::rename(media + "/out.before", media + "/out");
  expect_untouched({});
}

TEST_F(Confinement, SymlinkPlantedAtTheTempNameWhileQueued) {
  std::string id = submit_then_swap(input, media + "/out/o.mp4", [&] {
    fs::create_symlink(secret, media + "/out/.o.mp4.a1.partial");  // the first attempt's
  });
  expect_refused(id, "ERROR_CODE_OUTPUT", "o.mp4");
  // The daemon removes a failed job's temp names: the link goes, the file it named stays.
  expect_untouched({});
}

TEST_F(Confinement, InputSwappedForASymlinkWhileQueued) {
  std::string swapped = media + "/swapped.mp4";
  fs::copy_file(input, swapped);
  ASSERT_TRUE(make_clip(outside + "/private.mp4"));
  std::string id = submit_then_swap(swapped, media + "/out/o.mp4", [&] {
    fs::remove(swapped);
    fs::create_symlink(outside + "/private.mp4", swapped);
  });
  expect_refused(id, "ERROR_CODE_INPUT", "swapped.mp4");
  expect_untouched({});
}

// The playlist is inside the root; its segments are not. Absolute, "../" and file:// entries
// would each have the hls demuxer open a file outside.
TEST_F(Confinement, HlsPlaylistsLeadingOutAreRefused) {
  ASSERT_TRUE(daemon.start());
  int n = 0;
  for (const std::string& prefix :
       {outside + "/", std::string("../outside/"), "file://" + outside + "/"}) {
    SCOPED_TRACE(prefix);
    std::string playlist = media + "/list" + std::to_string(n++) + ".m3u8";
    tc::testing::make_hls(input, outside, playlist, prefix);
    expect_refused(submit(playlist, media + "/out/o.mp4"), "ERROR_CODE_INPUT", playlist);
    expect_untouched({});
  }
}

}  // namespace
