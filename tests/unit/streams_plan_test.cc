// The plan's choice for every audio and subtitle track, per container, and the reason it
// states: inputs are hand-made MediaInfo (image subtitles cannot be made with the ffmpeg CLI).
#include <gtest/gtest.h>

extern "C" {
#include <libavformat/avformat.h>
}

#include "pipeline/plan/plan.h"
#include "tests/unit/fixtures.h"

namespace tc {
namespace {

using testing::inventory;
using testing::job;
using testing::output;

AudioInfo audio_track(int index, AVCodecID codec, const std::string& language,
                      const std::string& title, int disposition = 0) {
  AudioInfo track;
  track.stream_index = index;
  track.codec = codec;
  track.codec_name = avcodec_get_name(codec);
  track.sample_rate = 48000;
  track.channels = 2;
  track.channel_layout = "stereo";
  track.tags = {language, title, disposition};
  return track;
}

SubtitleInfo subtitle_track(int index, AVCodecID codec, bool text, const std::string& language) {
  return {index, codec, avcodec_get_name(codec), text, {language, "", 0}};
}

// Video #0; audio #1 AAC eng (default), #2 PCM fra, #3 AC-3 deu; subtitles #4 SRT eng,
// #5 ASS fra, #6 PGS eng; #7 a data stream.
MediaInfo rich_media() {
  MediaInfo media = testing::media();
  media.audio = {audio_track(1, AV_CODEC_ID_AAC, "eng", "English", AV_DISPOSITION_DEFAULT),
                 audio_track(2, AV_CODEC_ID_PCM_S16LE, "fra", "Français"),
                 audio_track(3, AV_CODEC_ID_AC3, "deu", "")};
  media.subtitles = {subtitle_track(4, AV_CODEC_ID_SUBRIP, true, "eng"),
                     subtitle_track(5, AV_CODEC_ID_ASS, true, "fra"),
                     subtitle_track(6, AV_CODEC_ID_HDMV_PGS_SUBTITLE, false, "eng")};
  media.other_streams = {{7, "data", "bin_data"}};
  return media;
}

Plan plan_for(const OutputSpec& spec, const MediaInfo& media = rich_media()) {
  return testing::value_or_stop(make_plan(job({spec}), media, inventory({})));
}

// The outcome text of input stream `index` in output 0.
std::string outcome(const Plan& plan, int index) {
  for (const StreamOutcome& stream : plan.streams)
    if (stream.output == 0 && stream.input_stream == index) return stream.text();
  return "(not listed)";
}

TEST(StreamsPlan, EveryInputStreamIsListedInStreamOrder) {
  Plan plan = plan_for(output("a.mkv"));
  ASSERT_EQ(plan.streams.size(), 8u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(plan.streams[i].input_stream, i);
  EXPECT_EQ(plan.streams[1].language, "eng");
  EXPECT_EQ(plan.streams[1].title, "English");
  EXPECT_EQ(outcome(plan, 7), "dropped: data streams are not carried");
}

TEST(StreamsPlan, Mp4CopiesWhatItHoldsEncodesTheRestAndConvertsTextSubtitles) {
  Plan plan = plan_for(output("a.mp4"));
  EXPECT_EQ(outcome(plan, 0), "kept: encode libx264");
  EXPECT_EQ(outcome(plan, 1), "kept: copy");
  EXPECT_EQ(outcome(plan, 2), "kept: encode aac (mp4 cannot hold pcm_s16le)");
  EXPECT_EQ(outcome(plan, 3),
            "kept: encode aac (browsers do not play ac3 in mp4; --audio copy keeps it)");
  EXPECT_EQ(outcome(plan, 4), "kept: convert to mov_text (mp4 holds text subtitles as mov_text)");
  EXPECT_EQ(outcome(plan, 5), "kept: convert to mov_text (mp4 holds text subtitles as mov_text)");
  EXPECT_EQ(outcome(plan, 6), "dropped: mp4 cannot hold hdmv_pgs_subtitle");
  const OutputPlan& out = plan.outputs[0];
  ASSERT_EQ(out.audio.size(), 3u);
  EXPECT_EQ(out.audio[1].mode, AudioPlan::Mode::kEncode);
  EXPECT_EQ(out.audio[1].input_stream, 2);
  ASSERT_EQ(out.subtitles.size(), 2u);
  EXPECT_EQ(out.subtitles[0].encoder, "mov_text");
  // A graph for each encoded track, feeding this output.
  ASSERT_EQ(plan.audio_graphs.size(), 2u);
  EXPECT_EQ(plan.audio_graphs[0].input_stream, 2);
  EXPECT_EQ(plan.audio_graphs[0].graph.sink_label(0), "a2out0");
}

// AC-3 and E-AC-3 play in MP4 on Safari only: --audio auto encodes them to AAC there (as MP2),
// an explicit --audio copy keeps them; Matroska and MPEG-TS keep them either way.
TEST(StreamsPlan, Ac3AndEac3InMp4AreEncodedUnderAutoAndKeptUnderCopy) {
  for (AVCodecID codec : {AV_CODEC_ID_AC3, AV_CODEC_ID_EAC3}) {
    std::string name = avcodec_get_name(codec);
    MediaInfo media = testing::media();
    media.audio = {audio_track(1, codec, "eng", "", AV_DISPOSITION_DEFAULT)};
    Plan file = plan_for(output("a.mp4"), media);
    EXPECT_EQ(outcome(file, 1),
              "kept: encode aac (browsers do not play " + name + " in mp4; --audio copy keeps it)");
    ASSERT_EQ(file.outputs[0].audio.size(), 1u);
    EXPECT_EQ(file.outputs[0].audio[0].codec, AV_CODEC_ID_AAC);
    OutputSpec copy = output("a.mp4");
    copy.audio = AudioMode::kCopy;
    EXPECT_EQ(outcome(plan_for(copy, media), 1), "kept: copy") << name;
    for (const char* other : {"a.mkv", "a.ts", "a.mov"})
      EXPECT_EQ(outcome(plan_for(output(other), media), 1),
                std::string_view(other) == "a.mov" ? outcome(file, 1) : "kept: copy")
          << other;
  }
}

TEST(StreamsPlan, MatroskaCopiesEveryTrack) {
  Plan plan = plan_for(output("a.mkv"));
  for (int i = 1; i <= 6; ++i) EXPECT_EQ(outcome(plan, i), "kept: copy") << i;
  EXPECT_TRUE(plan.audio_graphs.empty());
  ASSERT_EQ(plan.outputs[0].subtitles.size(), 3u);
}

TEST(StreamsPlan, MatroskaConvertsMovTextToSrt) {
  MediaInfo media = rich_media();
  media.subtitles = {subtitle_track(4, AV_CODEC_ID_MOV_TEXT, true, "eng")};
  Plan plan = plan_for(output("a.mkv"), media);
  EXPECT_EQ(outcome(plan, 4), "kept: convert to srt (mkv holds text subtitles as srt)");
}

TEST(StreamsPlan, MpegTsDropsTextAndPgsSubtitlesSayingWhy) {
  Plan plan = plan_for(output("a.ts"));
  EXPECT_EQ(outcome(plan, 1), "kept: copy");
  EXPECT_EQ(outcome(plan, 2), "kept: encode aac (mpegts cannot hold pcm_s16le)");
  EXPECT_EQ(outcome(plan, 3), "kept: copy");
  EXPECT_EQ(outcome(plan, 4), "dropped: MPEG-TS cannot carry text subtitles");
  EXPECT_EQ(outcome(plan, 5), "dropped: MPEG-TS cannot carry text subtitles");
  EXPECT_EQ(outcome(plan, 6), "dropped: mpegts cannot hold hdmv_pgs_subtitle");
  EXPECT_TRUE(plan.outputs[0].subtitles.empty());
}

TEST(StreamsPlan, MpegTsCopiesDvbSubtitles) {
  MediaInfo media = rich_media();
  media.subtitles = {subtitle_track(4, AV_CODEC_ID_DVB_SUBTITLE, false, "eng")};
  Plan plan = plan_for(output("a.ts"), media);
  EXPECT_EQ(outcome(plan, 4), "kept: copy");
}

TEST(StreamsPlan, SubtitlesNoneDropsThemAll) {
  OutputSpec spec = output("a.mkv");
  spec.subtitles = SubtitleMode::kNone;
  Plan plan = plan_for(spec);
  for (int i = 4; i <= 6; ++i) EXPECT_EQ(outcome(plan, i), "dropped: --subtitles none") << i;
  EXPECT_TRUE(plan.outputs[0].subtitles.empty());
}

TEST(StreamsPlan, AudioTracksFirstKeepsTheDefaultTrack) {
  MediaInfo media = rich_media();
  media.audio[0].tags.disposition = 0;
  media.audio[1].tags.disposition = AV_DISPOSITION_DEFAULT;  // fra is the default
  OutputSpec spec = output("a.mkv");
  spec.audio_tracks = *parse_audio_tracks("first");
  Plan plan = plan_for(spec, media);
  EXPECT_EQ(outcome(plan, 1), "dropped: --audio-tracks first");
  EXPECT_EQ(outcome(plan, 2), "kept: copy");
  EXPECT_EQ(outcome(plan, 3), "dropped: --audio-tracks first");
}

TEST(StreamsPlan, AudioTracksByLanguage) {
  OutputSpec spec = output("a.mkv");
  spec.audio_tracks = *parse_audio_tracks("fra,deu");
  Plan plan = plan_for(spec);
  EXPECT_EQ(outcome(plan, 1), "dropped: --audio-tracks fra,deu (track language eng)");
  EXPECT_EQ(outcome(plan, 2), "kept: copy");
  EXPECT_EQ(outcome(plan, 3), "kept: copy");
  spec.audio_tracks = *parse_audio_tracks("jpn");
  Result<Plan> none = make_plan(job({spec}), rich_media(), inventory({}));
  EXPECT_EQ(none.status().code(), Code::kInput);
  EXPECT_NE(none.status().message().find("jpn"), std::string::npos);
}

TEST(StreamsPlan, AudioNoneAndAacApplyToEveryTrack) {
  OutputSpec spec = output("a.mkv");
  spec.audio = AudioMode::kNone;
  Plan none = plan_for(spec);
  for (int i = 1; i <= 3; ++i) EXPECT_EQ(outcome(none, i), "dropped: --audio none") << i;
  spec.audio = AudioMode::kAac;
  Plan aac = plan_for(spec);
  for (int i = 1; i <= 3; ++i) EXPECT_EQ(outcome(aac, i), "kept: encode aac (--audio aac)") << i;
  EXPECT_EQ(aac.audio_graphs.size(), 3u);
}

TEST(StreamsPlan, AudioCopyRefusesATrackTheContainerCannotHold) {
  OutputSpec spec = output("a.mp4");
  spec.audio = AudioMode::kCopy;
  Result<Plan> plan = make_plan(job({spec}), rich_media(), inventory({}));
  EXPECT_EQ(plan.status().code(), Code::kUnsupported);
  EXPECT_NE(plan.status().message().find("pcm_s16le"), std::string::npos);
}

// Outputs share a graph per encoded track; each output's sink is its own.
TEST(StreamsPlan, TwoOutputsEncodingOneTrackShareItsGraph) {
  Result<Plan> plan =
      make_plan(job({output("a.mp4"), output("b.ts", 640, 360)}), rich_media(), inventory({}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  // PCM #2 for both; AC-3 #3 for the mp4 alone (the ts copies it).
  ASSERT_EQ(plan->audio_graphs.size(), 2u);
  EXPECT_EQ(plan->audio_graphs[0].input_stream, 2);
  ASSERT_EQ(plan->audio_graphs[0].graph.sinks.size(), 2u);
  EXPECT_EQ(plan->audio_graphs[1].graph.sinks.size(), 1u);
  EXPECT_EQ(plan->audio_graphs[0].graph.sink_label(1), "a2out1");
}

TEST(StreamsPlan, DryRunListsStreamsAndTheFfmpegCommandMapsThem) {
  JobSpec spec = job({output("a.mp4")});
  Result<Plan> plan = make_plan(spec, rich_media(), inventory({}));
  ASSERT_TRUE(plan.is_ok());
  std::string text = describe(*plan);
  EXPECT_NE(text.find("#6 subtitle hdmv_pgs_subtitle eng: dropped: mp4 cannot hold"),
            std::string::npos)
      << text;
  std::string command = ffmpeg_command(*plan, spec);
  EXPECT_NE(command.find("-map 0:1 -c:a:0 copy -metadata:s:a:0 language=eng"), std::string::npos)
      << command;
  EXPECT_NE(command.find("-map '[a2out0]' -c:a:1 aac"), std::string::npos) << command;
  EXPECT_NE(command.find("-map 0:4 -c:s:0 mov_text -metadata:s:s:0 language=eng"),
            std::string::npos)
      << command;
  EXPECT_EQ(command.find("0:6"), std::string::npos) << command;  // the dropped PGS
}

// An input with one audio track and nothing else plans as before: one copied track.
TEST(StreamsPlan, OneTrackInputIsUnchanged) {
  Plan plan = plan_for(output("a.mp4"), testing::media());
  ASSERT_EQ(plan.outputs[0].audio.size(), 1u);
  EXPECT_EQ(plan.outputs[0].audio[0].mode, AudioPlan::Mode::kCopy);
  EXPECT_TRUE(plan.outputs[0].subtitles.empty());
  EXPECT_EQ(plan.streams.size(), 2u);
}

// --loudnorm: every kept track is encoded (a copy keeps the source's loudness), through
// loudnorm at the target, back to the track's rate; the reason names the option.
TEST(StreamsPlan, LoudnormEncodesEveryKeptTrackAndSaysWhy) {
  OutputSpec spec = output("a.mkv");
  spec.loudnorm = Loudnorm::kEbu;
  OutputSpec plain = output("b.mkv");
  Result<Plan> plan = make_plan(job({spec, plain}), rich_media(), inventory({}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_EQ(outcome(*plan, 1), "kept: encode aac (--loudnorm ebu)");
  EXPECT_EQ(outcome(*plan, 3), "kept: encode aac (--loudnorm ebu)");
  ASSERT_EQ(plan->audio_graphs.size(), 3u);
  const std::string& graph = plan->audio_graphs[0].graph.text;
  EXPECT_NE(
      graph.find("loudnorm=I=-23:LRA=7:TP=-2,aresample=48000,"
                 "aformat=sample_fmts=fltp:sample_rates=48000:channel_layouts=stereo[a1out0]"),
      std::string::npos)
      << graph;
  EXPECT_EQ(graph.find("[a1out1]"), std::string::npos) << "output 1 copies: " << graph;
  EXPECT_EQ(plan->outputs[1].audio[0].mode, AudioPlan::Mode::kCopy);

  spec.loudnorm = Loudnorm::kStreaming;
  Result<Plan> streaming = make_plan(job({spec}), rich_media(), inventory({}));
  ASSERT_TRUE(streaming.is_ok());
  EXPECT_NE(streaming->audio_graphs[0].graph.text.find("loudnorm=I=-16:LRA=11:TP=-1.5"),
            std::string::npos);

  spec.audio = AudioMode::kCopy;
  Status copy = validate(job({spec}));
  EXPECT_EQ(copy.code(), Code::kInvalidArgument);
  EXPECT_NE(copy.to_string().find("loudnorm"), std::string::npos) << copy.to_string();
}

// Encoded tracks get a layout their codec signals natively: AAC's channelConfiguration 1-7
// (5.1(side) -> 5.1, 6.1 -> 5.1), Opus's mapping family 1 for WebM; the default bitrate is 64 kb/s
// a channel; --audio-channels downmixes, --audio-rate resamples.
TEST(StreamsPlan, EncodedAudioGetsANativeLayoutAndABitrateByChannels) {
  MediaInfo surround = testing::media();
  surround.audio[0].codec = AV_CODEC_ID_AC3;
  surround.audio[0].codec_name = "ac3";
  surround.audio[0].channels = 6;
  surround.audio[0].channel_layout = "5.1(side)";
  OutputSpec aac = output("a.mp4");
  aac.audio = AudioMode::kAac;
  AudioPlan five_one = plan_for(aac, surround).outputs[0].audio[0];
  EXPECT_EQ(five_one.channel_layout, "5.1");
  EXPECT_EQ(five_one.bit_rate, 384000);
  EXPECT_NE(five_one.filter.find("channel_layouts=5.1"), std::string::npos) << five_one.filter;
  surround.audio[0].channels = 7;
  EXPECT_EQ(plan_for(aac, surround).outputs[0].audio[0].channel_layout, "5.1");

  OutputSpec downmix = output("b.mkv");
  downmix.audio_channels = 2;
  downmix.audio_rate = 44100;
  Plan stereo = plan_for(downmix, surround);
  EXPECT_EQ(stereo.outputs[0].audio[0].channel_layout, "stereo");
  EXPECT_EQ(stereo.outputs[0].audio[0].sample_rate, 44100);
  EXPECT_EQ(stereo.outputs[0].audio[0].bit_rate, 128000);
  EXPECT_EQ(outcome(stereo, 1), "kept: encode aac (--audio-channels 2)");

  surround.audio[0].channels = 6;
  AudioPlan opus = plan_for(output("c.webm", 0, 0, VideoCodec::kVp9), surround).outputs[0].audio[0];
  EXPECT_EQ(opus.codec, AV_CODEC_ID_OPUS);
  EXPECT_EQ(opus.sample_format, AV_SAMPLE_FMT_FLT);
  EXPECT_EQ(opus.channel_layout, "5.1");
}

}  // namespace
}  // namespace tc
