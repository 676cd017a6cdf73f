// Audio that plays where it is published (issue 38): surround in a layout AAC signals natively
// (channelConfiguration 6, not a program config element that browsers' MSE refuses), a default
// bitrate that grows with the channels, a downmix on request, MP2 converted for MP4 and WebM
// holding only what WebM holds. ffprobe and the esds bytes are the oracles.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tests/support/corpus.h"
#include "tests/support/media_tools.h"
#include "tests/support/mp4_boxes.h"

namespace tc::testing {
namespace {

// The first audio track of `path`, failing the test when there is none.
TrackProbe audio_track(const std::string& path) {
  for (const TrackProbe& track : probe_tracks(path))
    if (track.type == "audio") return track;
  ADD_FAILURE() << path << " has no audio track";
  return {};
}

// ffprobe's bit_rate of the first audio track (bits per second); 0 when it shows none.
int64_t audio_bit_rate(const std::string& path) {
  ProcessResult probed =
      run_process({"ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries",
                   "stream=bit_rate", "-of", "default=noprint_wrappers=1:nokey=1", path});
  return std::atoll(probed.out.c_str());
}

// The channelConfiguration of the AAC track of an MP4 file or init segment; -1 without an esds.
int channel_configuration(const std::string& path) {
  return read_aac_channel_configuration(read_file(path)).value_or(-1);
}

class SurroundSource : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override { corpus::surround_51(source_, GetParam()); }
  TempDir dir_;
  std::string source_ = dir_ / "surround.mkv";
};

// An AC-3 or E-AC-3 5.1(side) track encoded to AAC in an MP4 file: channelConfiguration 6
// (FL FR FC LFE BL BR, FFmpeg's "5.1"; 0 before, with the layout in a PCE), at 384 kb/s.
TEST_P(SurroundSource, AFileGetsAacChannelConfigurationSixAtSurroundBitrate) {
  ProcessResult ran = transcode({"run", source_, "-q", "--audio", "aac", "-o", dir_ / "out.mp4"});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_EQ(channel_configuration(dir_ / "out.mp4"), 6);
  TrackProbe audio = audio_track(dir_ / "out.mp4");
  EXPECT_EQ(audio.codec, "aac");
  EXPECT_EQ(audio.channel_layout, "5.1");
  EXPECT_EQ(audio.channels, 6);
  int64_t bit_rate = audio_bit_rate(dir_ / "out.mp4");
  EXPECT_GE(bit_rate, 340000) << "5.1 gets 6 x 64 kb/s, not stereo's 128 kb/s";
  EXPECT_LE(bit_rate, 430000);
}

// The same track in HLS fMP4 and DASH packages: the audio rendition's init segment.
TEST_P(SurroundSource, APackageGetsAacChannelConfigurationSix) {
  for (const char* kind : {"hls", "dash"}) {
    std::string package = dir_ / (std::string(kind) + "_pkg");
    ProcessResult ran =
        transcode({"run", source_, "-q", "--package", kind, "--package-dir", package, "-o", "v"});
    ASSERT_EQ(ran.exit_code, 0) << kind << ": " << ran.err;
    std::string init = package + "/audio_1/init.mp4";
    EXPECT_EQ(channel_configuration(init), 6) << kind;
    TrackProbe audio = audio_track(init);
    EXPECT_EQ(audio.channel_layout, "5.1") << kind;
    EXPECT_EQ(audio.channels, 6) << kind;
    int64_t bit_rate = audio_bit_rate(init);  // the esds's average bitrate
    EXPECT_GE(bit_rate, 340000) << kind;
    EXPECT_LE(bit_rate, 430000) << kind;
  }
}

// --audio-channels 2: the surround track is downmixed to stereo (channelConfiguration 2) at
// stereo's 128 kb/s.
TEST_P(SurroundSource, AudioChannelsTwoDownmixesToStereo) {
  ProcessResult ran =
      transcode({"run", source_, "-q", "--audio-channels", "2", "-o", dir_ / "stereo.mkv"});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  TrackProbe audio = audio_track(dir_ / "stereo.mkv");
  EXPECT_EQ(audio.codec, "aac");
  EXPECT_EQ(audio.channels, 2);
  EXPECT_EQ(audio.channel_layout, "stereo");
  EXPECT_NE(ran.out.find("encode aac (--audio-channels 2)"), std::string::npos) << ran.out;
}

// The text of `path`'s first audio AdaptationSet, empty when there is none; `count` gets how
// many there are.
std::string audio_set(const std::string& mpd, int& count) {
  const std::string open = "contentType=\"audio\"";
  count = 0;
  for (size_t at = mpd.find(open); at != std::string::npos; at = mpd.find(open, at + 1)) ++count;
  size_t start = mpd.find(open);
  if (start == std::string::npos) return "";
  return mpd.substr(start, mpd.find("</AdaptationSet>", start) - start);
}

// A surround source packaged: a stereo AAC rendition beside the 5.1 one in the same audio group
// (Apple's HLS authoring rules; players on stereo devices), HLS CHANNELS="2" beside "6", and in
// the MPD one audio AdaptationSet with an AudioChannelConfiguration per Representation. The
// stereo segments are what ffprobe reads as stereo AAC at 128 kb/s.
TEST_P(SurroundSource, APackageGetsAStereoRenditionBesideSurround) {
  std::string package = dir_ / "pkg";
  ProcessResult ran =
      transcode({"run", source_, "-q", "--package", "cmaf", "--package-dir", package, "-o", "v"});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  std::string master = read_file(package + "/master.m3u8");
  EXPECT_NE(master.find("#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"audio\",NAME=\"audio_1\",DEFAULT=YES,"
                        "AUTOSELECT=YES,CHANNELS=\"6\",URI=\"audio_1/index.m3u8\"\n"),
            std::string::npos)
      << master;
  EXPECT_NE(master.find("#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"audio\",NAME=\"audio_1 (stereo)\","
                        "DEFAULT=NO,AUTOSELECT=YES,CHANNELS=\"2\",URI=\"audio_1_stereo/"
                        "index.m3u8\"\n"),
            std::string::npos)
      << master;
  int sets = 0;
  std::string set = audio_set(read_file(package + "/manifest.mpd"), sets);
  EXPECT_EQ(sets, 1);
  const std::string channels =
      "<AudioChannelConfiguration "
      "schemeIdUri=\"urn:mpeg:dash:23003:3:audio_channel_configuration:2011\" value=";
  size_t surround = set.find("<Representation id=\"audio_1\"");
  size_t stereo = set.find("<Representation id=\"audio_1_stereo\"");
  ASSERT_NE(surround, std::string::npos) << set;
  ASSERT_NE(stereo, std::string::npos) << set;
  EXPECT_EQ(set.find(channels, surround), set.find(channels + "\"6\"/>", surround)) << set;
  EXPECT_EQ(set.find(channels, stereo), set.find(channels + "\"2\"/>", stereo)) << set;

  // The stereo rendition's first segment, after its init segment, as a player reads it.
  std::string joined = dir_ / "stereo.mp4";
  std::ofstream(joined, std::ios::binary) << read_file(package + "/audio_1_stereo/init.mp4")
                                          << read_file(package + "/audio_1_stereo/seg_00001.m4s");
  TrackProbe audio = audio_track(joined);
  EXPECT_EQ(audio.codec, "aac");
  EXPECT_EQ(audio.channels, 2);
  EXPECT_EQ(audio.channel_layout, "stereo");
  EXPECT_GT(audio.packets, 0);
  EXPECT_EQ(channel_configuration(package + "/audio_1_stereo/init.mp4"), 2);
  EXPECT_EQ(audio_bit_rate(package + "/audio_1_stereo/init.mp4"), 128000);
  EXPECT_EQ(channel_configuration(package + "/audio_1/init.mp4"), 6);
}

// --no-stereo-audio: the surround track alone.
TEST_P(SurroundSource, NoStereoAudioKeepsTheSurroundTrackAlone) {
  std::string package = dir_ / "pkg";
  ProcessResult ran = transcode({"run", source_, "-q", "--package", "cmaf", "--package-dir",
                                 package, "--no-stereo-audio", "-o", "v"});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  std::string master = read_file(package + "/master.m3u8");
  EXPECT_NE(master.find("CHANNELS=\"6\""), std::string::npos) << master;
  EXPECT_EQ(master.find("CHANNELS=\"2\""), std::string::npos) << master;
  EXPECT_FALSE(std::filesystem::exists(package + "/audio_1_stereo"));
}

INSTANTIATE_TEST_SUITE_P(AudioLayout, SurroundSource, ::testing::Values("ac3", "eac3"));

// A DVB recording's MP2 goes into MP4 as AAC: FFmpeg's mp4 muxer would take it, but it reads back
// as mp3 and browsers refuse it.
TEST(AudioLayout, Mp2IntoMp4IsEncodedToAac) {
  TempDir dir;
  corpus::mp2_ts(dir / "dvb.ts");
  ProcessResult ran = transcode({"run", dir / "dvb.ts", "-o", dir / "out.mp4"});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_EQ(audio_track(dir / "out.mp4").codec, "aac");
  EXPECT_EQ(channel_configuration(dir / "out.mp4"), 2);
  EXPECT_NE(ran.out.find("encode aac (mp4 players do not take mp2"), std::string::npos) << ran.out;
}

// .webm is WebM: DocType "webm", VP9 when no codec is asked, Opus audio (5.1 in Opus's own
// mapping). A codec WebM cannot hold is refused naming it.
TEST(AudioLayout, WebmHoldsVp9AndOpus) {
  TempDir dir;
  corpus::surround_51(dir / "s.mkv", "ac3");
  ProcessResult ran = transcode({"run", dir / "s.mkv", "-q", "-o", dir / "out.webm"});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  std::vector<TrackProbe> tracks = probe_tracks(dir / "out.webm");
  ASSERT_EQ(tracks.size(), 2u);
  EXPECT_EQ(tracks[0].codec, "vp9");
  EXPECT_EQ(tracks[1].codec, "opus");
  EXPECT_EQ(tracks[1].channels, 6);
  // The EBML header's DocType element (ID 0x4282, size 4): "webm", not "matroska".
  std::string header = read_file(dir / "out.webm").substr(0, 64);
  EXPECT_NE(header.find("\x42\x82\x84webm"), std::string::npos);
  EXPECT_EQ(header.find("matroska"), std::string::npos);

  ProcessResult h264 =
      transcode({"run", dir / "s.mkv", "-q", "--codec", "h264", "-o", dir / "h264.webm"});
  EXPECT_EQ(h264.exit_code, 4) << h264.err;  // unsupported, as vp9 in mpegts
  EXPECT_NE(h264.err.find("codec h264 cannot go in webm"), std::string::npos) << h264.err;
  ProcessResult copy =
      transcode({"run", dir / "s.mkv", "-q", "--codec", "copy", "-o", dir / "copy.webm"});
  EXPECT_EQ(copy.exit_code, 3) << copy.err;  // the source's video is what WebM cannot hold
  EXPECT_NE(copy.err.find("cannot hold the source's h264 video"), std::string::npos) << copy.err;
}

}  // namespace
}  // namespace tc::testing
