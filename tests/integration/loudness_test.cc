// `--loudnorm` (issue 11): a loud source comes out at the target loudness, as the ffmpeg CLI's
// ebur128 filter (the oracle) measures it.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <sstream>

#include "tests/support/corpus.h"
#include "tests/support/media_tools.h"

namespace tc::testing {
namespace {

// EBU R128 allows +-1 LU around the target for live programmes; one pass of loudnorm (its
// dynamic mode) lands well inside that on a steady tone.
constexpr double kToleranceLu = 1.0;

// "a b c" -> {"a", "b", "c"}: a command line without quoting (no argument here has a space).
std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> split;
  std::istringstream in(line);
  for (std::string word; in >> word;) split.push_back(word);
  return split;
}

// The integrated loudness (LUFS) of `path`'s first audio track; NaN when not measured.
double integrated_loudness(const std::string& path) {
  ProcessResult measured = run_process({"ffmpeg", "-hide_banner", "-nostats", "-i", path, "-map",
                                        "0:a:0", "-af", "ebur128", "-f", "null", "-"});
  // The summary at the end: "Integrated loudness:\n    I:         -23.0 LUFS".
  static const std::regex summary("Integrated loudness:\\s*I:\\s*(-?[0-9.]+) LUFS");
  std::smatch match;
  if (!std::regex_search(measured.err, match, summary)) return std::nan("");
  return std::atof(match[1].str().c_str());
}

TEST(Loudnorm, LoudSineComesOutAtTheTarget) {
  TempDir dir;
  std::string source = dir / "loud.mkv";
  // A 440 Hz tone 15 dB over lavfi's default (-21 dBFS): about -6 LUFS.
  ProcessResult made = run_process(
      words("ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc2=s=160x90:r=10:d=12 "
            "-f lavfi -i sine=frequency=440:duration=12 -af volume=15dB -c:v libx264 "
            "-preset ultrafast -c:a flac " +
            source));
  ASSERT_EQ(made.exit_code, 0) << made.err;
  double before = integrated_loudness(source);
  ASSERT_GT(before, -12) << "the source must be loud for the test to mean anything";

  ProcessResult ran = transcode({"run", source, "-q", "--loudnorm", "ebu", "-o", dir / "ebu.mkv",
                                 "-o", dir / "streaming.mp4", "--loudnorm", "streaming", "-o",
                                 dir / "untouched.mkv", "--loudnorm", "off"});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  double ebu = integrated_loudness(dir / "ebu.mkv");
  double streaming = integrated_loudness(dir / "streaming.mp4");
  RecordProperty("loudness_source_lufs", std::to_string(before));
  RecordProperty("loudness_ebu_lufs", std::to_string(ebu));
  RecordProperty("loudness_streaming_lufs", std::to_string(streaming));
  EXPECT_NEAR(ebu, -23, kToleranceLu);
  EXPECT_NEAR(streaming, -16, kToleranceLu);
  EXPECT_NEAR(integrated_loudness(dir / "untouched.mkv"), before, 0.1);  // copied as it was
  // The report says why a track Matroska could copy was encoded.
  EXPECT_NE(ran.out.find("encode aac (--loudnorm ebu)"), std::string::npos) << ran.out;
}

// A quiet source (about -38 LUFS) in each lossy codec customers upload: the last aformat of the
// loudnorm chain had no channel layout, so every decoder but FLAC's and PCM's made the graph
// fail (exit 70). Each now reaches the EBU target.
TEST(Loudnorm, QuietSourcesOfEveryLossyCodecReachTheTarget) {
  TempDir dir;
  for (const char* codec : {"aac", "ac3", "libopus", "libmp3lame"}) {
    std::string source = dir / (std::string("quiet_") + codec);
    corpus::quiet_audio(source, codec);
    std::string out = dir / (std::string("ebu_") + codec + ".mp4");
    ProcessResult ran = transcode({"run", source, "-q", "--loudnorm", "ebu", "-o", out});
    ASSERT_EQ(ran.exit_code, 0) << codec << ": " << ran.err;
    double loudness = integrated_loudness(out);
    RecordProperty(std::string("loudness_ebu_from_") + codec + "_lufs", std::to_string(loudness));
    EXPECT_NEAR(loudness, -23, kToleranceLu) << codec;
  }
}

}  // namespace
}  // namespace tc::testing
