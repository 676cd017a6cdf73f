// The mutation corpus: small clips made by ffmpeg, damaged a few hundred ways (bit flips, byte
// runs, truncation, duplicated chunks), each run through `transcode run`. Whatever the damage,
// the run ends by itself with a documented exit code, says why in one line naming the input,
// and leaves no output unless it succeeded. TC_MUTATIONS=N runs N per seed (default below).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "service/common/exit_codes.h"
#include "tests/support/media_tools.h"
#include "tests/support/mutate.h"

namespace tc::testing {
namespace {

namespace fs = std::filesystem;

constexpr int kMutationsPerSeed = 70;
constexpr const char* kRunTimeoutS = "20";  // a 1 s clip of 64x48: a run past this has hung
// What damaged input may end in: done, input, unsupported (a codec id flipped to one we lack),
// output (a stream the muxer refuses, e.g. a size the container cannot hold). Never usage,
// device, internal (70), a signal or the timeout's kill (137).
const std::set<int> kAllowedExits = {kExitOk, kExitInput, kExitUnsupported, kExitOutput};

class MutationCorpus : public ::testing::TestWithParam<const char*> {
 protected:
  static void SetUpTestSuite() {
    seeds_ = new TempDir();
    make_clip(*seeds_ / "seed.mp4", {.width = 64, .height = 48, .fps = 10, .seconds = 1});
    make_clip(*seeds_ / "seed.ts", {.width = 64, .height = 48, .fps = 10, .seconds = 1});
    make_clip(*seeds_ / "seed.mkv", {.width = 64, .height = 48, .fps = 10, .seconds = 1});
  }
  static void TearDownTestSuite() { delete seeds_; }
  static TempDir* seeds_;
};
TempDir* MutationCorpus::seeds_ = nullptr;

int count_lines(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

TEST_P(MutationCorpus, TranscodeRunEndsWithADocumentedCodeAndLeavesNothing) {
  const std::string extension = GetParam();
  const std::string seed = read_file(*seeds_ / ("seed." + extension));
  ASSERT_FALSE(seed.empty());
  TempDir inputs, outputs;
  std::map<int, int> by_exit;
  int count = mutation_count(kMutationsPerSeed);
  for (int i = 0; i < count; ++i) {
    Mutation mutation = mutate(seed, static_cast<unsigned>(i));
    std::string input = inputs.file("m" + std::to_string(i) + "." + extension, mutation.bytes);
    std::string output = outputs / "out.mp4";
    ProcessResult run = run_process(
        {"timeout", "-s", "KILL", kRunTimeoutS, transcode_binary(), "run", input, output});
    ++by_exit[run.exit_code];
    SCOPED_TRACE(input + " (" + mutation.how + "): exit " + std::to_string(run.exit_code) +
                 ", stderr: " + run.err);
    EXPECT_TRUE(kAllowedExits.count(run.exit_code));
    if (run.exit_code != kExitOk) {
      std::printf("%s (%s): exit %d: %s", input.c_str(), mutation.how.c_str(), run.exit_code,
                  run.err.c_str());
      EXPECT_EQ(count_lines(run.err), 1);
      if (run.exit_code == kExitInput) {
        EXPECT_NE(run.err.find(input), std::string::npos);
      }
      EXPECT_EQ(outputs.entries(), std::vector<std::string>{});
    } else {
      EXPECT_EQ(outputs.entries(), std::vector<std::string>{"out.mp4"});
    }
    fs::remove(output);
    fs::remove(input);
  }
  std::string summary;
  for (const auto& [code, runs] : by_exit)
    summary += " exit " + std::to_string(code) + ": " + std::to_string(runs);
  RecordProperty("exit_codes", summary);
  std::printf("%d mutations of seed.%s:%s\n", count, extension.c_str(), summary.c_str());
}

INSTANTIATE_TEST_SUITE_P(Seeds, MutationCorpus, ::testing::Values("mp4", "ts", "mkv"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace tc::testing
