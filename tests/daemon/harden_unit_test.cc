// Issue 10's pieces without a server: loopback by address, start-up warnings, request bounds.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "service/daemon/config.h"
#include "service/daemon/policy/request_policy.h"
#include "service/daemon/store/job_store.h"
#include "tests/support/media_tools.h"

using namespace tc;
using namespace tc::daemon;

namespace {

// Before: a text prefix, so "127.0.0.1.example.com" (a hostname anywhere) counted as loopback.
TEST(Loopback, ParsedAsAnAddressNotAPrefix) {
  for (const char* listen : {"127.0.0.1:50051", "127.1.2.3:1", "[::1]:50051", "localhost:50051",
                             "[::ffff:127.0.0.1]:1", "unix:/run/transcoded.sock"})
    EXPECT_TRUE(is_loopback_address(listen)) << listen;
  for (const char* listen : {"127.0.0.1.example.com:50051", "0.0.0.0:50051", "[::]:50051",
                             "10.0.0.1:50051", "localhost.example.com:1", "127:1", "host:1"})
    EXPECT_FALSE(is_loopback_address(listen)) << listen;
  DaemonConfig c;
  c.listen = "127.0.0.1.example.com:50051";
  Status status = validate_config(c);
  EXPECT_FALSE(status.is_ok());
  EXPECT_NE(status.message().find("not loopback"), std::string::npos) << status.message();
}

// Before: an insecure remote listener and a remote metrics endpoint started without a word.
TEST(Loopback, InsecureExposureIsWarnedAbout) {
  DaemonConfig local;
  EXPECT_TRUE(config_warnings(local).empty());
  DaemonConfig remote;
  remote.listen = "0.0.0.0:50051";
  remote.allow_insecure_remote = true;
  remote.metrics_listen = "0.0.0.0:9090";
  std::vector<std::string> warnings = config_warnings(remote);
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_NE(warnings[0].find("without TLS"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[1].find("auth_token_file"), std::string::npos) << warnings[1];
  EXPECT_NE(warnings[2].find("metrics_listen 0.0.0.0:9090"), std::string::npos) << warnings[2];
  remote.auth_token = "t";
  remote.tls_cert = remote.tls_key = "x";
  remote.metrics_listen = "127.0.0.1:9090";
  EXPECT_TRUE(config_warnings(remote).empty());
}

TEST(RequestBounds, LabelsAreCountedAndSized) {
  std::map<std::string, std::string> labels;
  for (size_t i = 0; i < kMaxLabels; ++i) labels["k" + std::to_string(i)] = "v";
  EXPECT_TRUE(check_labels(labels).is_ok());
  labels["one-more"] = "v";
  ApiStatus too_many = check_labels(labels);
  EXPECT_EQ(too_many.reason(), ApiReason::kTooLarge);
  EXPECT_EQ(too_many.field(), "labels");
  ApiStatus long_key = check_labels({{std::string(kMaxLabelKeyBytes + 1, 'k'), "v"}});
  EXPECT_EQ(long_key.reason(), ApiReason::kTooLarge);
  ApiStatus long_value = check_labels({{"team", std::string(kMaxLabelValueBytes + 1, 'v')}});
  EXPECT_EQ(long_value.reason(), ApiReason::kTooLarge);
  EXPECT_EQ(long_value.field(), "labels['team']");
  EXPECT_EQ(check_labels({{"", "v"}}).code(), ApiCode::kInvalidArgument);
}

// Issue 36: a label key or value with a NUL byte or invalid UTF-8 is refused naming the field.
TEST(RequestBounds, LabelsAreRepresentableText) {
  ApiStatus nul_value = check_labels({{"team", std::string("a\0b", 3)}});
  EXPECT_EQ(nul_value.code(), ApiCode::kInvalidArgument);
  EXPECT_EQ(nul_value.field(), "labels['team']");
  EXPECT_EQ(nul_value.message(), "labels['team']: contains a NUL byte");
  ApiStatus nul_key = check_labels({{std::string("k\0x", 3), "v"}});
  EXPECT_EQ(nul_key.code(), ApiCode::kInvalidArgument);
  EXPECT_EQ(nul_key.field(), "labels");
  ApiStatus bad_utf8 = check_labels({{"team", "caf\xe9"}});
  EXPECT_EQ(bad_utf8.code(), ApiCode::kInvalidArgument);
  EXPECT_EQ(bad_utf8.message(), "labels['team']: not valid UTF-8 (at byte 3)");
}

// Issue 36: an output named .../state/jobs.sqlite3 replaced the job database. The daemon refuses
// a state dir that is a media root, inside one (through a symlink too) or holding one.
TEST(StateDirApart, AStateDirThatOverlapsAMediaRootIsRefusedNamingBoth) {
  tc::testing::TempDir dir;
  std::filesystem::create_directories(dir / "media/state");
  std::filesystem::create_directories(dir / "state");
  std::filesystem::create_symlink(dir / "media", dir / "link");
  auto roots = canonical_roots({dir / "media"});
  ASSERT_TRUE(roots.is_ok());
  std::string root = (*roots)[0];
  for (const std::string& state :
       std::vector<std::string>{dir / "media/state", dir / "media", dir / "link/state",
                                dir / "media/not-yet/state", dir.path()}) {
    Status status = check_state_dir_apart(state, *roots);
    EXPECT_EQ(status.code(), Code::kInvalidArgument) << state;
    EXPECT_EQ(status.field(), "state_dir") << state;
    EXPECT_NE(status.message().find("'" + root + "'"), std::string::npos) << status.message();
  }
  EXPECT_TRUE(check_state_dir_apart(dir / "state", *roots).is_ok());
  EXPECT_TRUE(check_state_dir_apart(dir / "mediax", *roots).is_ok());
}

TEST(RequestBounds, PathsAreBoundedBeforeTheyAreResolved) {
  RequestPolicy policy;
  policy.roots = {"/"};
  JobSpec spec;
  spec.input = "/" + std::string(kMaxPathBytes, 'p');
  spec.outputs.push_back({});
  spec.outputs[0].path = "/tmp/o.mp4";
  ApiStatus status = apply_policy(spec, policy);
  EXPECT_EQ(status.reason(), ApiReason::kTooLarge);
  EXPECT_EQ(status.field(), "input");
  EXPECT_LT(status.message().size(), 200u) << status.message();
}

// Before: a database with damaged pages opened, and the first query of the jobs failed.
TEST(JobStoreCheck, ADamagedDatabaseIsRefusedNamingTheFileAndTheWayOut) {
  tc::testing::TempDir dir;
  std::string path = dir.path() + "/jobs.sqlite3";
  ASSERT_TRUE(open_job_store({.state_dir = dir.path()}).is_ok());
  {
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(4096);  // page 2 on: the jobs table; page 1 (header, schema) stays readable
    std::string garbage(8192, '\xa5');
    file.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  auto store = open_job_store({.state_dir = dir.path()});
  ASSERT_FALSE(store.is_ok());
  EXPECT_EQ(store.status().code(), Code::kInput);
  EXPECT_NE(store.status().message().find(path + " is damaged"), std::string::npos)
      << store.status().message();
  EXPECT_NE(store.status().message().find("mv " + path + " " + path + ".damaged"),
            std::string::npos)
      << store.status().message();
}

}  // namespace
