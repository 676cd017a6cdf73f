// The customer-like corpus (tests/support/corpus.h) is what it says it is, checked with ffprobe:
// the other tests trust these sources to carry the trait that breaks things.
#include "tests/support/corpus.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/media_tools.h"

namespace tc::testing {
namespace {

nlohmann::json ffprobe_json(const std::vector<std::string>& extra, const std::string& path) {
  std::vector<std::string> argv = {"ffprobe", "-v", "error", "-of", "json"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back(path);
  ProcessResult probed = run_process(argv);
  EXPECT_EQ(probed.exit_code, 0) << probed.err;
  return nlohmann::json::parse(probed.out, nullptr, false);
}

double first_time(const std::string& path, const std::string& stream) {
  nlohmann::json packets = ffprobe_json({"-select_streams", stream, "-show_entries",
                                         "packet=pts_time,flags", "-read_intervals", "%+#1"},
                                        path)["packets"];
  return std::stod(packets.at(0)["pts_time"].get<std::string>());
}

TEST(Corpus, FlashBeepStartsTheAudioBeforeTheVideo) {
  TempDir dir;
  corpus::flash_beep(dir / "marks.ts", 3, 0.5);
  EXPECT_NEAR(first_time(dir / "marks.ts", "v:0") - first_time(dir / "marks.ts", "a:0"), 0.5, 0.05);
}

TEST(Corpus, TheBroadcastCutStartsOnANonKeyFrameAfterItsAudio) {
  TempDir dir;
  corpus::broadcast_ts_cut_mid_gop(dir / "cut.ts");
  nlohmann::json first = ffprobe_json(
      {"-select_streams", "v:0", "-show_entries", "packet=flags", "-read_intervals", "%+#1"},
      dir / "cut.ts")["packets"];
  EXPECT_EQ(first.at(0)["flags"].get<std::string>().find('K'), std::string::npos);
  EXPECT_LT(first_time(dir / "cut.ts", "a:0"), first_time(dir / "cut.ts", "v:0"));
  std::vector<TrackProbe> tracks = probe_tracks(dir / "cut.ts");
  ASSERT_EQ(tracks.size(), 2u);
  EXPECT_EQ(tracks[1].codec, "mp2");
}

TEST(Corpus, SurroundIsSixChannelsSideLayout) {
  TempDir dir;
  for (const char* codec : {"ac3", "eac3"}) {
    corpus::surround_51(dir / "s.mkv", codec);
    std::vector<TrackProbe> tracks = probe_tracks(dir / "s.mkv");
    ASSERT_EQ(tracks.size(), 2u);
    EXPECT_EQ(tracks[1].codec, codec);
    EXPECT_EQ(tracks[1].channels, 6);
    EXPECT_EQ(tracks[1].channel_layout, "5.1(side)");
  }
}

TEST(Corpus, ThePhoneClipIsRotatedAndVariableRate) {
  TempDir dir;
  corpus::phone_rotated_vfr(dir / "phone.mp4");
  nlohmann::json stream =
      ffprobe_json({"-select_streams", "v:0", "-show_streams"}, dir / "phone.mp4")["streams"][0];
  bool rotated = false;
  for (const nlohmann::json& side : stream.value("side_data_list", nlohmann::json::array()))
    rotated |= side.value("rotation", 0) == -90;
  EXPECT_TRUE(rotated) << stream.dump();
  EXPECT_NE(stream["r_frame_rate"], stream["avg_frame_rate"]);
}

TEST(Corpus, TheMezzanineIs422TenBit) {
  TempDir dir;
  corpus::mezzanine_10bit(dir / "mezz.mov");
  nlohmann::json stream =
      ffprobe_json({"-select_streams", "v:0", "-show_streams"}, dir / "mezz.mov")["streams"][0];
  EXPECT_EQ(stream["pix_fmt"], "yuv422p10le");
  EXPECT_EQ(stream["codec_name"], "prores");
  corpus::mezzanine_10bit(dir / "mezz.mov", "yuv422p10le", "h264");
  stream =
      ffprobe_json({"-select_streams", "v:0", "-show_streams"}, dir / "mezz.mov")["streams"][0];
  EXPECT_EQ(stream["pix_fmt"], "yuv422p10le");
  EXPECT_EQ(stream["profile"].get<std::string>().rfind("High 4:2:2", 0), 0u) << stream["profile"];
  // Every frame decodes (FFmpeg 5.1's mov muxer broke this one: 9 of 50 frames, slice errors).
  ProcessResult decoded = run_process(
      {"ffmpeg", "-v", "error", "-i", dir / "mezz.mov", "-map", "0:v", "-f", "null", "-"});
  EXPECT_EQ(decoded.err, "");
  EXPECT_EQ(ffprobe(dir / "mezz.mov")->video->frames, 50);
}

TEST(Corpus, TheDefaultAudioIsNotTheFirstAndOneSubtitleIsForced) {
  TempDir dir;
  corpus::three_languages_forced_subtitle(dir / "rip.mkv");
  std::vector<TrackProbe> tracks = probe_tracks(dir / "rip.mkv");
  ASSERT_EQ(tracks.size(), 6u);
  EXPECT_EQ(tracks[1].language, "jpn");
  EXPECT_FALSE(tracks[1].is_default);
  EXPECT_EQ(tracks[2].language, "eng");
  EXPECT_TRUE(tracks[2].is_default);
  EXPECT_TRUE(tracks[4].forced);
  EXPECT_FALSE(tracks[5].forced);
}

TEST(Corpus, MessyMetadataKeepsItsQuotesAndNewlines) {
  TempDir dir;
  corpus::messy_metadata(dir / "messy.mkv");
  std::vector<TrackProbe> tracks = probe_tracks(dir / "messy.mkv");
  ASSERT_EQ(tracks.size(), 3u);
  EXPECT_EQ(tracks[2].language, "en\",URI=\"http://example.invalid/x");
  EXPECT_NE(tracks[2].title.find('\n'), std::string::npos);
}

TEST(Corpus, TheOtherMakersMakeReadableFiles) {
  TempDir dir;
  corpus::mp2_ts(dir / "dvb.ts");
  corpus::screen_recording_vfr(dir / "screen.mp4");
  for (const char* codec : {"aac", "ac3", "libopus", "libmp3lame", "flac"})
    corpus::quiet_audio(dir / (std::string("quiet-") + codec), codec);
  for (const std::string& name : dir.entries()) {
    if (name.find(".srt") != std::string::npos) continue;
    EXPECT_TRUE(ffprobe(dir / name).has_value()) << name;
  }
}

}  // namespace
}  // namespace tc::testing
