// The mutation corpus through the daemon: damaged clips (tests/support/mutate.h) submitted as
// jobs. Each job ends SUCCEEDED or FAILED with a category that blames the media (never
// INTERNAL: no worker crash, hang or unexplained failure), nothing is left in the media root
// but the inputs and the outputs of jobs that succeeded, and the daemon keeps serving.
// TC_MUTATIONS=N submits N (default below).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "daemon_fixture.h"
#include "tests/support/mutate.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace tc::test;

namespace {

constexpr int kMutations = 30;
// The categories of damaged media: as `transcode run`'s exit codes 3, 4 and 6.
const std::set<std::string> kMediaErrors = {"ERROR_CODE_INPUT", "ERROR_CODE_UNSUPPORTED",
                                            "ERROR_CODE_OUTPUT"};

class DaemonMutation : public ::testing::Test {
 protected:
  CommandResult client(std::vector<std::string> args) {
    args.insert(args.end(), {"--server", daemon.address()});
    return run_client(args);
  }
  json job(const std::string& id) {
    CommandResult r = client({"get", id, "--json"});
    return r.exit_code == 0 ? json::parse(r.out, nullptr, false) : json::object();
  }

  TempDir dir;
  std::string media = dir.path() + "/media";
  Daemon daemon{dir.path() + "/state", media};
};

TEST_F(DaemonMutation, DamagedInputsFailAsInputErrorsAndTheDaemonKeepsServing) {
  fs::create_directories(media);
  std::string seed_path = dir.path() + "/seed.mp4";
  ASSERT_TRUE(make_clip(seed_path));
  std::string seed = tc::testing::read_file(seed_path);
  ASSERT_TRUE(daemon.start());

  struct Submitted {
    std::string id, output, what;  // what: the input and what was done to it
  };
  std::vector<Submitted> jobs;
  int count = tc::testing::mutation_count(kMutations);
  for (int i = 0; i < count; ++i) {
    tc::testing::Mutation mutation = tc::testing::mutate(seed, static_cast<unsigned>(i));
    std::string input = media + "/m" + std::to_string(i) + ".mp4";
    { std::ofstream(input, std::ios::binary) << mutation.bytes; }
    std::string output = media + "/out" + std::to_string(i) + ".mp4";
    CommandResult r = client({"submit", input, output});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    jobs.push_back({r.out.substr(0, r.out.find('\n')), output, input + " (" + mutation.how + ")"});
  }
  std::map<std::string, int> by_outcome;
  for (const auto& [id, output, what] : jobs) {
    client({"watch", id, "--quiet"});
    json got = job(id);
    std::string state = got.value("state", "");
    std::string code = got.contains("error") ? got["error"].value("code", "") : "";
    ++by_outcome[state + (code.empty() ? "" : " " + code)];
    if (state == "JOB_STATE_SUCCEEDED") continue;
    EXPECT_EQ(state, "JOB_STATE_FAILED") << what;
    EXPECT_FALSE(fs::exists(output)) << what;
    EXPECT_TRUE(kMediaErrors.count(code)) << what << ": " << got.dump();
  }
  EXPECT_EQ(client({"health"}).exit_code, 0);  // SERVING
  EXPECT_TRUE(partial_files(media).empty());
  for (const auto& [outcome, jobs_with_it] : by_outcome)
    std::printf("%d of %d: %s\n", jobs_with_it, count, outcome.c_str());
}

}  // namespace
