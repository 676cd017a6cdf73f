// Every audio and subtitle track through `transcode run`, into MP4, Matroska and MPEG-TS:
// what ffprobe finds in each output, and what the report says became of each input stream.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/support/media_tools.h"

namespace tc::testing {
namespace {

class Streams : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    shared_ = new TempDir();
    make_multitrack_clip(*shared_ / "tracks.mkv");
  }
  static void TearDownTestSuite() { delete shared_; }
  static std::string input() { return *shared_ / "tracks.mkv"; }

  // Runs the job with --json; its report.
  nlohmann::json run(std::vector<std::string> args) {
    args.insert(args.begin(), {"run", input()});
    args.push_back("--json");
    ProcessResult ran = transcode(args);
    EXPECT_EQ(ran.exit_code, 0) << ran.err;
    nlohmann::json report = nlohmann::json::parse(ran.out, nullptr, false);
    return report.is_discarded() ? nlohmann::json::object() : report;
  }

  TempDir dir_;
  static TempDir* shared_;
};

TempDir* Streams::shared_ = nullptr;

std::vector<TrackProbe> of_type(const std::vector<TrackProbe>& tracks, const std::string& type) {
  std::vector<TrackProbe> found;
  for (const TrackProbe& track : tracks)
    if (track.type == type) found.push_back(track);
  return found;
}

// The report's outcome text per input stream for output 0.
std::vector<std::string> outcomes(const nlohmann::json& report) {
  std::vector<std::string> texts;
  for (const auto& stream : report.value("streams", nlohmann::json::array()))
    if (stream["output"] == 0) texts.push_back(stream["outcome"]);
  return texts;
}

TEST_F(Streams, InputHasWhatTheTestsExpect) {
  std::vector<TrackProbe> tracks = probe_tracks(input());
  ASSERT_EQ(tracks.size(), 5u);
  EXPECT_EQ(of_type(tracks, "audio").size(), 2u);
  EXPECT_EQ(of_type(tracks, "subtitle").size(), 2u);
}

TEST_F(Streams, Mp4KeepsBothAudioTracksAndConvertsSubtitlesToMovText) {
  nlohmann::json report = run({dir_ / "out.mp4"});
  std::vector<TrackProbe> tracks = probe_tracks(dir_ / "out.mp4");
  ASSERT_EQ(tracks.size(), 5u);
  std::vector<TrackProbe> audio = of_type(tracks, "audio");
  ASSERT_EQ(audio.size(), 2u);
  EXPECT_EQ(audio[0].codec, "aac");
  EXPECT_EQ(audio[0].language, "eng");
  EXPECT_EQ(audio[0].handler_name, "English");  // MP4's place for a track title
  EXPECT_TRUE(audio[0].is_default);
  EXPECT_EQ(audio[1].codec, "aac");  // browsers do not play AC-3 in MP4
  EXPECT_EQ(audio[1].channel_layout, "5.1");
  EXPECT_EQ(audio[1].language, "fra");
  EXPECT_EQ(audio[1].handler_name, "Français 5.1");
  EXPECT_FALSE(audio[1].is_default);
  std::vector<TrackProbe> subtitles = of_type(tracks, "subtitle");
  ASSERT_EQ(subtitles.size(), 2u);
  EXPECT_EQ(subtitles[0].codec, "mov_text");
  EXPECT_EQ(subtitles[0].language, "eng");
  EXPECT_EQ(subtitles[1].codec, "mov_text");
  EXPECT_EQ(subtitles[1].language, "fra");
  EXPECT_TRUE(subtitles[1].forced);
  EXPECT_EQ(outcomes(report),
            (std::vector<std::string>{
                "kept: encode libx264", "kept: copy",
                "kept: encode aac (browsers do not play ac3 in mp4; --audio copy keeps it)",
                "kept: convert to mov_text (mp4 holds text subtitles as mov_text)",
                "kept: convert to mov_text (mp4 holds text subtitles as mov_text)"}));
}

TEST_F(Streams, MatroskaCopiesEveryTrackWithItsTags) {
  run({dir_ / "out.mkv"});
  std::vector<TrackProbe> tracks = probe_tracks(dir_ / "out.mkv");
  std::vector<TrackProbe> in = probe_tracks(input());
  ASSERT_EQ(tracks.size(), in.size());
  for (size_t i = 1; i < tracks.size(); ++i) {
    EXPECT_EQ(tracks[i].codec, in[i].codec) << i;
    EXPECT_EQ(tracks[i].language, in[i].language) << i;
    EXPECT_EQ(tracks[i].title, in[i].title) << i;
    EXPECT_EQ(tracks[i].channel_layout, in[i].channel_layout) << i;
    EXPECT_EQ(tracks[i].is_default, in[i].is_default) << i;
    EXPECT_EQ(tracks[i].forced, in[i].forced) << i;
    EXPECT_EQ(tracks[i].packets, in[i].packets) << i;
  }
  EXPECT_EQ(tracks[3].codec, "subrip");
  EXPECT_EQ(tracks[4].codec, "ass");
}

TEST_F(Streams, MpegTsKeepsAudioAndSaysWhySubtitlesWereDropped) {
  nlohmann::json report = run({dir_ / "out.ts"});
  std::vector<TrackProbe> tracks = probe_tracks(dir_ / "out.ts");
  ASSERT_EQ(tracks.size(), 3u);
  std::vector<TrackProbe> audio = of_type(tracks, "audio");
  ASSERT_EQ(audio.size(), 2u);
  EXPECT_EQ(audio[0].codec, "aac");
  EXPECT_EQ(audio[0].language, "eng");
  EXPECT_EQ(audio[1].codec, "ac3");
  EXPECT_EQ(audio[1].language, "fra");
  EXPECT_EQ(audio[1].channel_layout, "5.1(side)");
  std::vector<std::string> said = outcomes(report);
  ASSERT_EQ(said.size(), 5u);
  EXPECT_EQ(said[3], "dropped: MPEG-TS cannot carry text subtitles");
  EXPECT_EQ(said[4], "dropped: MPEG-TS cannot carry text subtitles");
}

TEST_F(Streams, EncodingKeepsLayoutLanguageTitleOfEveryTrack) {
  run({dir_ / "aac.mkv", "--audio", "aac"});
  std::vector<TrackProbe> audio = of_type(probe_tracks(dir_ / "aac.mkv"), "audio");
  ASSERT_EQ(audio.size(), 2u);
  EXPECT_EQ(audio[0].codec, "aac");
  EXPECT_EQ(audio[0].channel_layout, "mono");
  EXPECT_EQ(audio[0].title, "English");
  EXPECT_EQ(audio[1].codec, "aac");
  // AAC has no channel configuration for 5.1(side): the encoder writes it in a PCE, which
  // ffprobe reports as an unknown layout (as for the ffmpeg CLI's own output); six channels.
  EXPECT_EQ(audio[1].channels, 6);
  EXPECT_EQ(audio[1].language, "fra");
  EXPECT_EQ(audio[1].title, "Français 5.1");
}

TEST_F(Streams, ChoosingTracksByLanguageAndNoSubtitles) {
  nlohmann::json report = run({dir_ / "fra.mkv", "--audio-tracks", "fra", "--subtitles", "none"});
  std::vector<TrackProbe> tracks = probe_tracks(dir_ / "fra.mkv");
  ASSERT_EQ(tracks.size(), 2u);
  EXPECT_EQ(tracks[1].language, "fra");
  std::vector<std::string> said = outcomes(report);
  ASSERT_EQ(said.size(), 5u);
  EXPECT_EQ(said[1], "dropped: --audio-tracks fra (track language eng)");
  EXPECT_EQ(said[3], "dropped: --subtitles none");
}

TEST_F(Streams, FirstKeepsTheDefaultTrackOnly) {
  run({dir_ / "first.mp4", "--audio-tracks", "first"});
  std::vector<TrackProbe> audio = of_type(probe_tracks(dir_ / "first.mp4"), "audio");
  ASSERT_EQ(audio.size(), 1u);
  EXPECT_EQ(audio[0].language, "eng");
}

TEST_F(Streams, UnknownLanguageIsAnInputErrorNamingIt) {
  ProcessResult ran = transcode({"run", input(), dir_ / "x.mkv", "--audio-tracks", "jpn"});
  EXPECT_NE(ran.exit_code, 0);
  EXPECT_NE(ran.err.find("jpn"), std::string::npos) << ran.err;
  ProcessResult bad = transcode({"run", input(), dir_ / "x.mkv", "--audio-tracks", "japanese"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("--audio-tracks"), std::string::npos) << bad.err;
}

TEST_F(Streams, TrimmedSubtitlesKeepOnlyThoseInTheWindow) {
  // The clip's subtitles sit 21 ms late (the AAC track's priming): "Bonjour" shows to 1.121 s.
  run({dir_ / "trim.mkv", "--start", "1.15", "--duration", "0.8"});
  std::vector<TrackProbe> tracks = probe_tracks(dir_ / "trim.mkv");
  ASSERT_EQ(tracks.size(), 5u);
  EXPECT_EQ(tracks[3].packets, 1);  // "World" (1.2 s); "Hello" ended before the window
  EXPECT_EQ(tracks[4].packets, 1);  // "Monde"
}

// A subtitle on screen at the cut is kept, from the cut: "Hello" (0.2-1.0 s, 21 ms later in the
// clip) cut at 0.6 s shows from 0 to 0.42 s, copied (Matroska) or converted (MP4 mov_text) alike.
TEST_F(Streams, TheSubtitleOnScreenAtTheCutStartsAtZero) {
  run({"--start", "0.6", "--duration", "1", "-o", dir_ / "cut.mkv", "-o", dir_ / "cut.mp4"});
  for (const char* name : {"cut.mkv", "cut.mp4"}) {
    ProcessResult srt = run_process({"ffmpeg", "-hide_banner", "-loglevel", "error", "-i",
                                     dir_ / name, "-map", "0:s:0", "-f", "srt", "-"});
    ASSERT_EQ(srt.exit_code, 0) << srt.err;
    EXPECT_NE(srt.out.find("00:00:00,000 --> 00:00:00,4"), std::string::npos) << name << ":\n"
                                                                              << srt.out;
    EXPECT_NE(srt.out.find("Hello"), std::string::npos) << name << ":\n" << srt.out;
    EXPECT_NE(srt.out.find("World"), std::string::npos) << name << ":\n" << srt.out;
  }
}

TEST_F(Streams, DryRunListsEveryStreamAndMapsThemInTheFfmpegCommand) {
  ProcessResult ran = transcode({"run", input(), dir_ / "out.ts", "--dry-run"});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_NE(ran.out.find("#4 subtitle ass fra \"Sous-titres\": dropped: MPEG-TS cannot carry"),
            std::string::npos)
      << ran.out;
  EXPECT_NE(ran.out.find("-map 0:2 -c:a:1 copy -metadata:s:a:1 language=fra"), std::string::npos)
      << ran.out;
  EXPECT_TRUE(dir_.entries().empty());
}

// The printed ffmpeg command, run by ffmpeg, makes the streams the plan lists.
TEST_F(Streams, TheEquivalentFfmpegCommandMakesTheSameStreams) {
  ProcessResult ran = transcode({"run", input(), dir_ / "ff.mp4", "--dry-run"});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  size_t at = ran.out.find("ffmpeg -hide_banner");
  ASSERT_NE(at, std::string::npos) << ran.out;
  std::string command = ran.out.substr(at, ran.out.find('\n', at) - at);
  ProcessResult ff = run_process({"sh", "-c", command + " -loglevel error"});
  ASSERT_EQ(ff.exit_code, 0) << command << "\n" << ff.err;
  std::vector<TrackProbe> tracks = probe_tracks(dir_ / "ff.mp4");
  ASSERT_EQ(tracks.size(), 5u);
  EXPECT_EQ(tracks[3].codec, "mov_text");
  EXPECT_EQ(tracks[2].language, "fra");
  // The job itself, run: stream for stream what the ffmpeg command made.
  ProcessResult job = transcode({"run", input(), dir_ / "tc.mp4", "-q"});
  ASSERT_EQ(job.exit_code, 0) << job.err;
  std::vector<TrackProbe> ours = probe_tracks(dir_ / "tc.mp4");
  ASSERT_EQ(ours.size(), tracks.size());
  for (size_t k = 0; k < tracks.size(); ++k) {
    SCOPED_TRACE("stream " + std::to_string(k));
    EXPECT_EQ(ours[k].type, tracks[k].type);
    EXPECT_EQ(ours[k].codec, tracks[k].codec);
    EXPECT_EQ(ours[k].channels, tracks[k].channels);
    EXPECT_EQ(ours[k].channel_layout, tracks[k].channel_layout);
    EXPECT_EQ(ours[k].language, tracks[k].language);
    EXPECT_EQ(ours[k].handler_name, tracks[k].handler_name);
    EXPECT_EQ(ours[k].is_default, tracks[k].is_default);
    EXPECT_EQ(ours[k].forced, tracks[k].forced);
  }
}

// Issue 36: a title of megabytes in the media was stored whole, twice, in the job's record. The
// report keeps the first 256 bytes of it.
TEST_F(Streams, ALongTitleFromTheMediaIsCutInTheReport) {
  std::string source = dir_ / "titled.mkv";
  ProcessResult made = run_process({"ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=d=1", "-f",
                                    "lavfi", "-i", "color=s=64x64:d=1", "-shortest",
                                    "-metadata:s:a:0", "title=" + std::string(5000, 'T'), source});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  ProcessResult ran = transcode({"run", source, "-o", dir_ / "out.mkv", "--json"});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  nlohmann::json report = nlohmann::json::parse(ran.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << ran.out.substr(0, 300);
  std::vector<std::string> titles;
  for (const auto& stream : report.value("streams", nlohmann::json::array()))
    if (!stream.value("title", "").empty()) titles.push_back(stream.value("title", ""));
  ASSERT_EQ(titles.size(), 1u) << report.dump().substr(0, 300);
  EXPECT_EQ(titles[0], std::string(256, 'T'));
}

// Issue 36: a small file of 999 empty audio tracks took 1.35 GB (an AAC encoder each). Past 64
// tracks to keep the source is refused as an input error, naming the count.
TEST_F(Streams, ASourceWithAHundredAudioTracksIsRefusedAsInput) {
  std::string source = dir_ / "many.mkv";
  std::vector<std::string> make = {"ffmpeg",
                                   "-v",
                                   "error",
                                   "-f",
                                   "lavfi",
                                   "-i",
                                   "anullsrc=d=0.2",
                                   "-f",
                                   "lavfi",
                                   "-i",
                                   "color=s=64x64:d=0.2"};
  make.insert(make.end(), {"-map", "1:v"});
  for (int i = 0; i < 100; ++i) make.insert(make.end(), {"-map", "0:a"});
  make.insert(make.end(), {"-c:a", "pcm_s16le", "-shortest", source});
  ProcessResult made = run_process(make);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  ProcessResult ran = transcode({"run", source, "-o", dir_ / "out.mkv"});
  EXPECT_EQ(ran.exit_code, 3) << ran.err;  // kExitInput
  EXPECT_NE(ran.err.find("100 audio tracks to keep, more than a job opens (64)"), std::string::npos)
      << ran.err;
  EXPECT_FALSE(file_exists(dir_ / "out.mkv"));
}

// Every stream of a source is a line of the report, stored for the job's retention: a file of
// 300 subtitle tracks (a few KB) is refused as input before any is opened.
TEST_F(Streams, ASourceWithThreeHundredStreamsIsRefusedAsInput) {
  std::string source = dir_ / "streams.mkv";
  std::ofstream(dir_ / "one.srt") << "1\n00:00:00,000 --> 00:00:00,100\nx\n";
  std::vector<std::string> make = {
      "ffmpeg",         "-v",   "error", "-f", "lavfi", "-i", "color=s=64x64:d=0.2", "-i",
      dir_ / "one.srt", "-map", "0:v"};
  for (int i = 0; i < 299; ++i) make.insert(make.end(), {"-map", "1:s"});
  make.insert(make.end(), {"-c:s", "srt", source});
  ProcessResult made = run_process(make);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  ProcessResult ran = transcode({"run", source, "-o", dir_ / "out.mkv"});
  EXPECT_EQ(ran.exit_code, 3) << ran.err;  // kExitInput
  EXPECT_NE(ran.err.find("300 streams, more than a job reads (256)"), std::string::npos) << ran.err;
  EXPECT_FALSE(file_exists(dir_ / "out.mkv"));
}

}  // namespace
}  // namespace tc::testing
