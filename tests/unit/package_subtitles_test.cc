// A package's subtitles: the plan (which tracks become WebVTT renditions, and why the others do
// not), the cues' placement in segments and the manifests' subtitle entries.
#include <gtest/gtest.h>

#include <cstring>

#include "pipeline/package/manifests.h"
#include "pipeline/package/text_rendition.h"
#include "pipeline/plan/segment_container.h"
#include "pipeline/plan/text_plan.h"
#include "tests/unit/fixtures.h"

namespace tc {
namespace {

using testing::inventory;
using testing::job;
using testing::output;

SubtitleInfo subtitle_track(int index, AVCodecID codec, bool text, const std::string& language) {
  return {index, codec, avcodec_get_name(codec), text, {language, "", 0}};
}

// Video #0, audio #1 (the fixture's); subtitles #2 SRT eng, #3 ASS fra, #4 PGS deu.
MediaInfo media_with_subtitles() {
  MediaInfo media = testing::media();
  media.subtitles = {subtitle_track(2, AV_CODEC_ID_SUBRIP, true, "eng"),
                     subtitle_track(3, AV_CODEC_ID_ASS, true, "fra"),
                     subtitle_track(4, AV_CODEC_ID_HDMV_PGS_SUBTITLE, false, "deu")};
  return media;
}

Plan package_plan(SubtitleMode subtitles) {
  JobSpec spec = job({output("720p", 1280, 720), output("360p", 640, 360)});
  for (OutputSpec& output : spec.outputs) output.subtitles = subtitles;
  spec.package.kind = PackageKind::kCmaf;
  spec.package.dir = "/out/show";
  spec.package.segment_s = 4;
  normalize(spec);
  return testing::value_or_stop(make_plan(spec, media_with_subtitles(), inventory({})));
}

std::string outcome(const Plan& plan, size_t output, int index) {
  for (const StreamOutcome& stream : plan.streams)
    if (stream.output == output && stream.input_stream == index) return stream.text();
  return "(not listed)";
}

TEST(PackageSubtitlesPlan, TextTracksBecomeWebVttRenditionsOfTheFirstOutput) {
  Plan plan = package_plan(SubtitleMode::kCopy);
  ASSERT_EQ(plan.outputs.size(), 2u);
  ASSERT_EQ(plan.outputs[0].subtitles.size(), 2u);
  EXPECT_EQ(plan.outputs[0].subtitles[0].input_stream, 2);
  EXPECT_EQ(plan.outputs[0].subtitles[0].encoder, "webvtt");
  EXPECT_EQ(plan.outputs[0].subtitles[1].input_stream, 3);
  EXPECT_TRUE(plan.outputs[1].subtitles.empty());
  EXPECT_EQ(outcome(plan, 0, 2),
            "kept: WebVTT rendition subs_2 (converted by FFmpeg's webvtt encoder)");
  EXPECT_EQ(outcome(plan, 0, 3),
            "kept: WebVTT rendition subs_3 (converted by FFmpeg's webvtt encoder; ASS styling and "
            "positions dropped, italic, bold and underline kept)");
  EXPECT_EQ(outcome(plan, 0, 4),
            "dropped: hdmv_pgs_subtitle is a bitmap subtitle: a package carries subtitles as "
            "WebVTT, which is text");
  EXPECT_EQ(outcome(plan, 1, 2),
            "dropped: the package carries it once, as the WebVTT rendition subs_2");
  // The ffmpeg command converts each track into one WebVTT document, not into an MP4 output.
  JobSpec spec;
  spec.input = "in.mkv";
  std::string command = ffmpeg_command(plan, spec);
  EXPECT_NE(command.find("-map 0:2 -c:s webvtt -f webvtt /out/show/subs_2/subs.vtt"),
            std::string::npos)
      << command;
  EXPECT_EQ(command.find("-c:s:0"), std::string::npos) << command;
  std::string text = describe(plan);
  EXPECT_NE(text.find("subtitle rendition: input stream #2 webvtt into /out/show/subs_2/"),
            std::string::npos)
      << text;
}

TEST(PackageSubtitlesPlan, SubtitlesNoneKeepsThemOut) {
  Plan plan = package_plan(SubtitleMode::kNone);
  EXPECT_TRUE(plan.outputs[0].subtitles.empty());
  for (int index : {2, 3, 4}) EXPECT_EQ(outcome(plan, 0, index), "dropped: --subtitles none");
}

TEST(PackageSubtitlesPlan, RenditionNamesOfSubtitlesAreReserved) {
  JobSpec spec = job({output("subs_1", 640, 360)});
  spec.package.kind = PackageKind::kHls;
  spec.package.dir = "/out/show";
  spec.package.segment_s = 4;
  normalize(spec);
  Status status = validate(spec);
  EXPECT_EQ(status.code(), Code::kInvalidArgument);
  EXPECT_NE(status.message().find("outputs[0].path"), std::string::npos) << status.to_string();
}

package::Cue cue(int64_t start_ms, int64_t end_ms, std::string text) {
  return {start_ms * 1000, end_ms * 1000, std::move(text)};
}

TEST(TextRendition, CuesFromTheEncoderKeepTheirTimesAndLoseBlankLines) {
  package::TextRendition rendition("subs_2", "eng", "");
  const char* text = "one\n\ntwo --> three\n";
  AVPacket packet{};
  packet.data = reinterpret_cast<uint8_t*>(const_cast<char*>(text));
  packet.size = int(std::strlen(text));
  packet.pts = 1'250'000;
  packet.duration = 500'000;
  ASSERT_TRUE(rendition.add(packet, {1, 1000000}).is_ok());
  ASSERT_EQ(rendition.measure().cues.size(), 1u);
  const package::Cue& added = rendition.measure().cues[0];
  EXPECT_EQ(added.start_us, 1'250'000);
  EXPECT_EQ(added.end_us, 1'750'000);
  EXPECT_EQ(added.text, "one\ntwo --&gt; three");
  EXPECT_EQ(package::webvtt_time(3'723'456'789), "01:02:03.457");
}

TEST(TextRendition, ASegmentHoldsTheCuesOverlappingIt) {
  package::TrackMeasure video;
  video.time_base = {1, 1000};
  video.segments = {{0, 2000, 1, true}, {2000, 2000, 1, true}, {4000, 1000, 1, true}};
  std::vector<package::SegmentRange> ranges = package::segment_ranges(video);
  ASSERT_EQ(ranges.size(), 3u);
  EXPECT_EQ(ranges[1].from_us, 2'000'000);
  EXPECT_EQ(ranges[1].to_us, 4'000'000);
  EXPECT_EQ(ranges[2].duration_us, 1'000'000);
  std::vector<package::Cue> cues = {cue(500, 1500, "a"), cue(1800, 2600, "across"),
                                    cue(4000, 4000, "instant"), cue(9000, 9500, "after the end")};
  auto texts = [&](size_t segment) {
    std::string joined;
    for (const package::Cue& c : package::cues_in(cues, ranges[segment])) joined += c.text + ";";
    return joined;
  };
  EXPECT_EQ(texts(0), "a;across;");
  EXPECT_EQ(texts(1), "across;");
  EXPECT_EQ(texts(2), "instant;after the end;");
  EXPECT_EQ(package::webvtt_segment({cues[1]}, 0),
            "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000\n\n"
            "00:00:01.800 --> 00:00:02.600\nacross\n\n");
  // TS segments start at 1.4 s (the mpegts muxer's delay): the map says so.
  EXPECT_EQ(
      package::webvtt_segment({}, package::segment_container(SegmentFormat::kTs).media_zero_90khz),
      "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:126000,LOCAL:00:00:00.000\n\n");
}

TEST(Manifests, SubtitleRenditionsInTheMasterAndTheMpd) {
  package::PackageMeasure measure;
  measure.segment_name = "seg_{n}";
  package::TrackMeasure video;
  video.name = "360p";
  video.time_base = {1, 1000};
  video.width = 640;
  video.height = 360;
  video.segments = {{0, 2000, 1000, true}, {2000, 1500, 1000, true}};
  measure.video = {video};
  package::TextMeasure eng{"subs_2", "eng", "", {cue(0, 1000, "x")}, 2, 80, 3.5};
  package::TextMeasure again{"subs_3", "eng", "", {}, 2, 8, 3.5};
  package::TextMeasure titled{"subs_4", "", "Commentary <1>", {}, 2, 8, 3.5};
  measure.text = {eng, again, titled};
  std::string master = package::hls_master(measure);
  EXPECT_NE(master.find("#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"subs\",NAME=\"eng\","
                        "LANGUAGE=\"eng\",DEFAULT=NO,AUTOSELECT=YES,URI=\"subs_2/index.m3u8\"\n"),
            std::string::npos)
      << master;
  EXPECT_NE(master.find("NAME=\"eng (subs_3)\""), std::string::npos) << "names are unique";
  EXPECT_NE(master.find("NAME=\"Commentary <1>\",DEFAULT=NO"), std::string::npos);
  EXPECT_NE(master.find(",SUBTITLES=\"subs\",CLOSED-CAPTIONS=NONE\n360p/index.m3u8"),
            std::string::npos)
      << master;
  std::string mpd = package::dash_mpd(measure);
  EXPECT_NE(mpd.find("<AdaptationSet id=\"1\" contentType=\"text\" mimeType=\"text/vtt\" "
                     "lang=\"eng\">"),
            std::string::npos)
      << mpd;
  // 80 bytes over the longest track's 3.5 s.
  EXPECT_NE(mpd.find("<Representation id=\"subs_2\" bandwidth=\"182\">\n"
                     "        <BaseURL>subs_2/subs.vtt</BaseURL>"),
            std::string::npos)
      << mpd;
  EXPECT_NE(mpd.find("<Label>Commentary &lt;1&gt;</Label>"), std::string::npos);
  // The package's target duration (3 here: say its audio's longest segment), not the text's own 2.
  std::string playlist =
      package::hls_subtitle_playlist(package::segment_ranges(measure.video[0]), "seg_{n}", 3);
  EXPECT_EQ(playlist,
            "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:3\n#EXT-X-MEDIA-SEQUENCE:1\n"
            "#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:2.000000,\nseg_00001.vtt\n#EXTINF:1.500000,\n"
            "seg_00002.vtt\n#EXT-X-ENDLIST\n");
  // Never below its own longest segment.
  EXPECT_NE(package::hls_subtitle_playlist(package::segment_ranges(measure.video[0]), "seg_{n}", 1)
                .find("#EXT-X-TARGETDURATION:2\n"),
            std::string::npos);
}

}  // namespace
}  // namespace tc
