// `--preset NAME` and `transcode presets` end to end: a preset's run against the same run with its
// options typed out (ffprobe and the packets' hashes as the oracle), the refusals a user meets
// (an unknown preset, a preset file with a key the CLI does not know), and `--preset <TAB>` in
// bash, zsh and fish offering the built-in and $TRANSCODE_PRESETS_DIR's names.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "service/common/exit_codes.h"
#include "tests/support/media_tools.h"

namespace tc::testing {
namespace {

class Presets : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    shared_ = new TempDir();
    make_clip(*shared_ / "in.mp4", {.width = 640, .height = 360, .seconds = 1});
  }
  static void TearDownTestSuite() { delete shared_; }
  static std::string input() { return *shared_ / "in.mp4"; }

  TempDir dir_;
  static TempDir* shared_;
};

TempDir* Presets::shared_ = nullptr;

TEST_F(Presets, APresetRunProducesWhatItsOptionsProduce) {
  ProcessResult preset = transcode({"run", input(), dir_ / "preset.mp4", "--preset", "web-720p"});
  ASSERT_EQ(preset.exit_code, 0) << preset.err;
  // web-720p's options, typed out (service/presets/builtin/web-720p.json).
  ProcessResult typed =
      transcode({"run", input(), dir_ / "typed.mp4", "--size", "1280x0", "--codec", "h264", "--crf",
                 "23", "--gop", "60", "--audio", "aac", "--audio-bitrate", "96k",
                 "--audio-channels", "2", "--container", "mp4"});
  ASSERT_EQ(typed.exit_code, 0) << typed.err;
  std::optional<ProbeInfo> info = ffprobe(dir_ / "preset.mp4");
  ASSERT_TRUE(info && info->video && info->audio);
  EXPECT_EQ(info->video->codec, "h264");
  EXPECT_EQ(info->video->width, 1280);
  EXPECT_EQ(info->video->height, 720);
  EXPECT_EQ(info->audio->codec, "aac");
  EXPECT_EQ(packet_hashes(dir_ / "preset.mp4"), packet_hashes(dir_ / "typed.mp4"));
}

TEST_F(Presets, AnOptionOnTheCommandLineWinsOverThePreset) {
  ProcessResult run =
      transcode({"run", input(), dir_ / "small.mp4", "--preset", "web-1080p", "--size", "320x0"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::optional<ProbeInfo> info = ffprobe(dir_ / "small.mp4");
  ASSERT_TRUE(info && info->video);
  EXPECT_EQ(info->video->width, 320);
  EXPECT_EQ(info->video->height, 180);
}

TEST_F(Presets, ListsNameVersionOriginAndSummary) {
  ProcessResult list = transcode({"presets"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  for (const char* line : {"web-1080p\tv1\tbuilt-in\t", "web-720p\tv1\tbuilt-in\t",
                           "apple-hls\tv1\tbuilt-in\tHLS ladder of Apple's"})
    EXPECT_NE(list.out.find(line), std::string::npos) << line << " in\n" << list.out;
}

TEST_F(Presets, AFilePresetRunsAndIsListed) {
  std::string file = dir_.file("team.json",
                               R"({"name": "team-small", "version": 3, "summary": "ours",
          "outputs": [{"size": "320x0", "codec": "h264", "audio": "none"}]})");
  ProcessResult list = transcode({"presets", "--presets-file", file});
  EXPECT_NE(list.out.find("team-small\tv3\t" + file + "\tours"), std::string::npos) << list.out;
  ProcessResult run = transcode(
      {"run", input(), dir_ / "team.mp4", "--preset", "team-small", "--presets-file", file});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::optional<ProbeInfo> info = ffprobe(dir_ / "team.mp4");
  ASSERT_TRUE(info && info->video);
  EXPECT_EQ(info->video->width, 320);
  EXPECT_FALSE(info->audio.has_value());
}

TEST_F(Presets, AFilePresetWithAnUnknownKeyIsRefusedNamingIt) {
  std::string file = dir_.file(
      "typo.json", R"({"name": "typo", "version": 1, "outputs": [{"size": "320x0", "crff": 20}]})");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"run", input(), dir_ / "x.mp4", "--preset", "typo",
                                 "--presets-file", file},
        std::vector<std::string>{"presets", "--presets-file", file}}) {
    ProcessResult run = transcode(args);
    EXPECT_EQ(run.exit_code, kExitUsage) << run.err;
    EXPECT_NE(run.err.find("unknown key 'crff' in outputs[0]"), std::string::npos) << run.err;
  }
  EXPECT_FALSE(file_exists(dir_ / "x.mp4"));
}

TEST_F(Presets, AnUnknownPresetIsAUsageErrorNamingIt) {
  ProcessResult run = transcode({"run", input(), dir_ / "x.mp4", "--preset", "web-4k"});
  EXPECT_EQ(run.exit_code, kExitUsage);
  EXPECT_NE(run.err.find("unknown preset 'web-4k'"), std::string::npos) << run.err;
}

// `transcode completion SHELL` written to `dir`/`file`; a local preset dir beside it holds
// "team-small". Each shell below runs with TRANSCODE_PRESETS_DIR set to it and the binary typed
// by its path, as a user with a build of their own would.
class PresetCompletion : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.file("team.json",
              R"({"name": "team-small", "version": 1, "outputs": [{"size": "320x0"}]})");
  }
  std::string script(const std::string& shell, const std::string& file) {
    ProcessResult made = transcode({"completion", shell});
    EXPECT_EQ(made.exit_code, 0) << made.err;
    return scripts_.file(file, made.out);
  }
  // The lines `shell_command` prints, run by `shell` with the preset dir in its environment.
  std::vector<std::string> lines(const std::string& shell, const std::string& shell_command) {
    std::vector<std::string> argv{"env", "TRANSCODE_PRESETS_DIR=" + dir_.path(), shell};
    if (shell != "bash") argv.push_back(shell == "fish" ? "--no-config" : "-f");
    argv.insert(argv.end(), {"-c", shell_command});
    ProcessResult run = run_process(argv);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    std::vector<std::string> found;
    std::istringstream text(run.out);
    for (std::string line; std::getline(text, line);)
      if (!line.empty()) found.push_back(line.substr(0, line.find('\t')));
    return found;
  }

  TempDir dir_;
  TempDir scripts_;
};

using Names = std::vector<std::string>;

TEST_F(PresetCompletion, BashOffersBuiltInAndLocalPresetNames) {
  std::string path = script("bash", "transcode.bash");
  auto complete = [&](const std::string& words, int word) {
    return lines("bash", "source '" + path + "' && COMP_WORDS=(" + words +
                             ") && COMP_CWORD=" + std::to_string(word) +
                             " && _transcode; printf '%s\\n' \"${COMPREPLY[@]}\"");
  };
  std::string program = "'" + transcode_binary() + "'";
  EXPECT_EQ(complete(program + " run in.mp4 --preset ''", 4),
            (Names{"apple-hls", "web-1080p", "web-720p", "team-small"}));
  EXPECT_EQ(complete(program + " submit --preset te", 3), Names{"team-small"});
}

TEST_F(PresetCompletion, ZshOffersBuiltInAndLocalPresetNames) {
  std::string path = script("zsh", "_transcode");
  EXPECT_EQ(run_process({"zsh", "-n", path}).exit_code, 0);
  ProcessResult text = transcode({"completion", "zsh"});
  EXPECT_NE(text.out.find("--preset='[a named output preset"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(":NAME:_transcode_presets'"), std::string::npos) << text.out;
  // The function the spec names, run by zsh with compadd printing what it is given.
  EXPECT_EQ(lines("zsh", "eval \"$(sed -n '/^_transcode_presets() {/,/^}/p' '" + path +
                             "')\"; compadd() { [[ $1 == -- ]] && shift; print -rl -- \"$@\" }; "
                             "tc_program='" +
                             transcode_binary() + "'; _transcode_presets"),
            (Names{"apple-hls", "web-1080p", "web-720p", "team-small"}));
}

TEST_F(PresetCompletion, FishOffersBuiltInAndLocalPresetNames) {
  std::string path = script("fish", "transcode.fish");
  EXPECT_EQ(run_process({"fish", "--no-execute", path}).exit_code, 0);
  EXPECT_EQ(lines("fish", "source '" + path + "'; complete -C '" + transcode_binary() +
                              " run in.mp4 --preset '"),
            (Names{"apple-hls", "team-small", "web-720p", "web-1080p"}));
}

}  // namespace
}  // namespace tc::testing
