// Issue 36: a job store that stops taking writes. The daemon died of SIGBUS when its SQLite
// database's file system filled up mid-job (the mapped -shm), and the job then ran twice; one
// that survived kept answering SERVING while every CreateJob failed. A read-only state
// directory at start was called "damaged". Here the state directory is a small tmpfs the test
// mounts (as root; skipped, saying why, where it cannot), filled up and emptied again for real.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "daemon_fixture.h"
#include "pipeline/core/file.h"

namespace fs = std::filesystem;
using namespace tc::test;
using tc::read_file_or_empty;

namespace {

class StoreHealth : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(media);
    fs::create_directories(state);
    if (::mount("tmpfs", state.c_str(), "tmpfs", 0, "size=16m") != 0)
      GTEST_SKIP() << "cannot mount a tmpfs for the state directory: " << std::strerror(errno);
    mounted = true;
  }
  void TearDown() override {
    daemon.stop(SIGKILL);
    if (mounted) ::umount2(state.c_str(), MNT_DETACH);
  }

  CommandResult client(std::vector<std::string> args) {
    args.insert(args.end(), {"--server", daemon.address()});
    return run_client(args);
  }
  bool serving() { return client({"health"}).exit_code == 0; }
  nlohmann::json job(const std::string& id) {
    return nlohmann::json::parse(client({"get", id, "--json"}).out, nullptr, false);
  }
  std::string state_of(const std::string& id) {
    nlohmann::json got = job(id);
    return got.is_object() ? got.value("state", "") : "";
  }
  // The daemon binary run by hand on the state directory: its exit status; its stderr in `err`.
  int run_daemon(std::string& err) {
    std::string err_file = dir.path() + "/daemon.err";
    int status =
        shell("timeout 30 " + env_or_die("TRANSCODED") + " --listen 127.0.0.1:0 --state-dir " +
              state + " --media-root " + media + " </dev/null >/dev/null 2>" + err_file);
    err = read_file_or_empty(err_file);
    return status;
  }

  TempDir dir;
  std::string media = dir.path() + "/media";
  std::string state = dir.path() + "/state";
  bool mounted = false;
  Daemon daemon{state, media};
};

TEST_F(StoreHealth, AStoreThatStopsTakingWritesIsNotServingUntilItDoesAgain) {
  std::string input = media + "/in.mp4";
  ASSERT_TRUE(make_clip(input, 6));
  // A beat a second; the slow fault makes the job last while the store is full.
  ASSERT_TRUE(daemon.start({"--lease", "3"}, "slow"));
  ASSERT_TRUE(serving());
  CommandResult submitted = client({"submit", input, media + "/out.mp4"});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  std::string id = submitted.out.substr(0, submitted.out.find('\n'));
  ASSERT_TRUE(wait_until([&] { return state_of(id) == "JOB_STATE_RUNNING"; })) << state_of(id);
  // No shared-memory file to map, whatever befalls the file system.
  EXPECT_FALSE(fs::exists(state + "/jobs.sqlite3-shm"));
  ASSERT_NE(shell("dd if=/dev/zero of=" + state + "/filler bs=64k 2>/dev/null"), 0);  // full
  EXPECT_TRUE(wait_until([&] { return !serving(); })) << "SERVING while the store is full";
  ASSERT_EQ(::kill(daemon.pid(), 0), 0) << "the daemon died";
  fs::remove(state + "/filler");
  EXPECT_TRUE(wait_until([&] { return serving(); })) << "not SERVING once the store was back";
  ASSERT_TRUE(wait_until([&] { return state_of(id) == "JOB_STATE_SUCCEEDED"; })) << state_of(id);
  EXPECT_EQ(job(id).value("attempt", 0), 1) << "it ran again: " << job(id).dump();
  EXPECT_EQ(video_frames(media + "/out.mp4"), 180);
  EXPECT_TRUE(partial_files(media).empty());
  // Idle, with nothing to renew: the beat's own write finds the store full all the same.
  ASSERT_NE(shell("dd if=/dev/zero of=" + state + "/filler bs=64k 2>/dev/null"), 0);
  EXPECT_TRUE(wait_until([&] { return !serving(); })) << "SERVING while the store is full";
  EXPECT_NE(client({"submit", input, media + "/refused.mp4"}).exit_code, 0);
  fs::remove(state + "/filler");
  EXPECT_TRUE(wait_until([&] { return serving(); })) << "not SERVING once the store was back";
}

TEST_F(StoreHealth, AReadOnlyStateDirectoryIsNotWritableNotDamaged) {
  std::string err;
  // Empty and read-only: no database can be made.
  ASSERT_EQ(::mount(nullptr, state.c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr), 0);
  EXPECT_EQ(run_daemon(err), 6) << err;
  EXPECT_NE(err.find("not writable"), std::string::npos) << err;
  // A healthy database on a file system made read-only since.
  ASSERT_EQ(::mount(nullptr, state.c_str(), nullptr, MS_REMOUNT, nullptr), 0);
  ASSERT_TRUE(daemon.start());
  daemon.stop(SIGTERM);
  ASSERT_EQ(::mount(nullptr, state.c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr), 0);
  EXPECT_EQ(run_daemon(err), 6) << err;
  EXPECT_NE(err.find(state + "/jobs.sqlite3 is not writable"), std::string::npos) << err;
  EXPECT_EQ(err.find("damaged"), std::string::npos) << err;
}

// The daemon holds its database exclusively (no -shm to share it through): a second daemon on
// the same state directory is refused, saying so, and the first serves on.
TEST_F(StoreHealth, ASecondDaemonOnTheStateDirectoryIsRefusedAsInUse) {
  ASSERT_TRUE(daemon.start());
  std::string err;
  EXPECT_EQ(run_daemon(err), 6) << err;
  EXPECT_NE(err.find("is in use by another process"), std::string::npos) << err;
  EXPECT_TRUE(serving());
}

}  // namespace
