// `transcode run --package` with subtitle tracks: every text track becomes a WebVTT rendition.
// Checked with ffmpeg/ffprobe (never with our own writer): each .vtt reads; its cues' times and
// text are the source's (as ffmpeg converts them) within a millisecond, after a --start trim
// too; segment i holds exactly the cues overlapping video segment i; the manifests carry the
// group and the language. Bitmap subtitles are left out, and the stream list says why.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/media_tools.h"
#include "tests/support/package_probe.h"

namespace tc::testing {
namespace {

constexpr double kSegment = 2;

struct Cue {
  double start = 0;
  double end = 0;
  std::string text;
};

// "00:01.250" or "01:00:01.250" in seconds.
double vtt_seconds(const std::string& time) {
  double seconds = 0;
  std::stringstream parts(time);
  for (std::string part; std::getline(parts, part, ':');) seconds = seconds * 60 + std::stod(part);
  return seconds;
}

// The cues of a WebVTT document, as ffmpeg's webvtt muxer writes them out.
std::vector<Cue> parse_vtt(const std::string& text) {
  std::vector<Cue> cues;
  std::istringstream lines(text);
  std::regex timing(R"(^([0-9:.]+) --> ([0-9:.]+))");
  std::smatch match;
  for (std::string line; std::getline(lines, line);) {
    if (!std::regex_search(line, match, timing)) continue;
    Cue cue{vtt_seconds(match[1]), vtt_seconds(match[2]), ""};
    for (std::string body; std::getline(lines, body) && !body.empty();)
      cue.text += (cue.text.empty() ? "" : "\n") + body;
    cues.push_back(cue);
  }
  return cues;
}

// What ffmpeg reads from `input` (stream `map`), converted by ffmpeg to WebVTT, at the times
// the file holds (-copyts). Without it the CLI moves every stream by the file's start time, which
// FFmpeg 7.1's Matroska muxer makes -21 ms (AAC's priming, kept as negative timestamps where 5.1
// moved every stream 21 ms later instead): the cues would come out 21 ms off the video.
std::vector<Cue> ffmpeg_cues(const std::string& input, const std::string& map = "0:s:0") {
  ProcessResult run = run_process({"ffmpeg", "-hide_banner", "-loglevel", "error", "-copyts", "-i",
                                   input, "-map", map, "-c:s", "webvtt", "-f", "webvtt", "-"});
  EXPECT_EQ(run.exit_code, 0) << input << ": " << run.err;
  return parse_vtt(run.out);
}

// The source's cues as a trim at `start` keeps them: those still on screen at the cut, from
// the cut (time 0) to their end.
std::vector<Cue> trimmed(const std::vector<Cue>& cues, double start) {
  std::vector<Cue> kept;
  for (Cue cue : cues) {
    if (cue.end <= start) continue;
    cue.start = std::max(cue.start - start, 0.0);
    cue.end -= start;
    kept.push_back(cue);
  }
  return kept;
}

void expect_same_cues(const std::vector<Cue>& got, const std::vector<Cue>& expected,
                      const std::string& where) {
  ASSERT_EQ(got.size(), expected.size()) << where;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i].start, expected[i].start, 0.0011) << where << " cue " << i;
    EXPECT_NEAR(got[i].end, expected[i].end, 0.0011) << where << " cue " << i;
    EXPECT_EQ(got[i].text, expected[i].text) << where << " cue " << i;
  }
}

// The media playlist's attributes line for TYPE=SUBTITLES, or "".
std::string subtitle_media_line(const std::string& master) {
  std::istringstream lines(master);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("#EXT-X-MEDIA:TYPE=SUBTITLES", 0) == 0) return line;
  return "";
}

// A minimal PGS (Blu-ray) subtitle stream: a 64x16 box shown at 1 s, cleared at 2 s. The ffmpeg
// CLI cannot make bitmap subtitles from text, so the test writes the segments itself.
std::string pgs_stream() {
  auto be = [](std::string& out, uint64_t value, int bytes) {
    for (int i = bytes - 1; i >= 0; --i) out += char((value >> (8 * i)) & 0xff);
  };
  auto segment = [&](uint32_t pts, int type, const std::string& data) {
    std::string out = "PG";
    be(out, pts, 4);
    be(out, 0, 4);
    be(out, type, 1);
    be(out, data.size(), 2);
    return out + data;
  };
  auto display_set = [&](uint32_t pts, bool show) {
    std::string composition;
    for (auto [value, bytes] : std::vector<std::pair<int, int>>{{320, 2},
                                                                {240, 2},
                                                                {0x10, 1},
                                                                {show ? 0 : 1, 2},
                                                                {show ? 0x80 : 0, 1},
                                                                {0, 1},
                                                                {0, 1},
                                                                {show ? 1 : 0, 1}})
      be(composition, value, bytes);
    if (show)
      for (auto [value, bytes] :
           std::vector<std::pair<int, int>>{{0, 2}, {0, 1}, {0, 1}, {10, 2}, {10, 2}})
        be(composition, value, bytes);
    std::string window;
    for (auto [value, bytes] :
         std::vector<std::pair<int, int>>{{1, 1}, {0, 1}, {10, 2}, {10, 2}, {64, 2}, {16, 2}})
      be(window, value, bytes);
    std::string out = segment(pts, 0x16, composition) + segment(pts, 0x17, window);
    if (show) {
      out += segment(pts, 0x14, std::string("\0\0\x01\xeb\x80\x80\xff", 7));
      std::string rle;
      for (int row = 0; row < 16; ++row) rle += std::string("\0\xc0\x40\x01\0\0", 6);
      std::string object;
      be(object, 0, 2);
      be(object, 0, 1);
      be(object, 0xc0, 1);
      be(object, rle.size() + 4, 3);
      be(object, 64, 2);
      be(object, 16, 2);
      out += segment(pts, 0x15, object + rle);
    }
    return out + segment(pts, 0x80, "");
  };
  return display_set(90000, true) + display_set(180000, false);
}

class PackageSubtitles : public ::testing::Test {
 protected:
  // 7 s, two text tracks: SRT eng (a cue across the 2 s and 4 s boundaries, one of two lines)
  // and ASS fra with italics.
  static void SetUpTestSuite() {
    shared_ = new TempDir();
    std::ofstream(*shared_ / "eng.srt") << "1\n00:00:00,500 --> 00:00:01,500\nFirst words\n\n"
                                           "2\n00:00:01,800 --> 00:00:02,600\nAcross a boundary\n\n"
                                           "3\n00:00:03,000 --> 00:00:04,250\nTwo\nlines\n\n"
                                           "4\n00:00:05,900 --> 00:00:06,400\nNear the end\n";
    std::ofstream(*shared_ / "fra.ass")
        << "[Script Info]\nScriptType: v4.00+\n\n[V4+ Styles]\nFormat: Name, Fontname, Fontsize, "
           "PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, "
           "StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, "
           "MarginL, MarginR, MarginV, Encoding\nStyle: Default,Arial,20,&H00FFFFFF,&H000000FF,"
           "&H00000000,&H00000000,0,0,0,0,100,100,0,0,1,1,0,2,10,10,10,1\n\n[Events]\nFormat: "
           "Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\n"
           "Dialogue: 0,0:00:01.00,0:00:02.50,Default,,0,0,0,,{\\i1}Bonjour{\\i0} {\\an8}en haut\n"
           "Dialogue: 0,0:00:04.50,0:00:05.00,Default,,0,0,0,,Monde\n";
    std::ofstream(*shared_ / "pgs.sup", std::ios::binary) << pgs_stream();
    std::vector<std::string> args{"ffmpeg", "-hide_banner", "-loglevel", "error", "-y"};
    for (std::string source :
         {"testsrc2=size=320x240:rate=30:duration=7", "sine=f=440:duration=7:sample_rate=48000"})
      args.insert(args.end(), {"-f", "lavfi", "-i", source});
    for (const char* file : {"eng.srt", "fra.ass", "pgs.sup"})
      args.insert(args.end(), {"-i", *shared_ / file});
    for (int input = 0; input < 5; ++input)
      args.insert(args.end(), {"-map", std::to_string(input)});
    for (std::string metadata :
         {"s:0 language=eng", "s:1 language=fra", "s:1 title=Français", "s:2 language=deu"})
      args.insert(args.end(), {"-metadata:s:" + metadata.substr(0, 3), metadata.substr(4)});
    args.insert(args.end(), {"-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
                             "-c:a", "aac", "-c:s", "copy", *shared_ / "in.mkv"});
    ProcessResult made = run_process(args);
    ASSERT_EQ(made.exit_code, 0) << made.err;
  }
  static void TearDownTestSuite() { delete shared_; }
  static std::string input() { return *shared_ / "in.mkv"; }

  nlohmann::json package(const std::string& kind, std::vector<std::string> more = {}) {
    std::vector<std::string> args{"run",        input(),     "--package", kind,     "--package-dir",
                                  dir_ / "pkg", "--segment", "2",         "--json", "-q"};
    args.insert(args.end(), more.begin(), more.end());
    for (const char* arg : {"-o", "240p", "--size", "320x240", "-o", "120p", "--size", "160x120"})
      args.push_back(arg);
    ProcessResult run = transcode(args);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    return run.exit_code == 0 ? nlohmann::json::parse(run.out) : nlohmann::json();
  }

  // Every segment of the text rendition `name` holds exactly the cues of `expected` that
  // overlap its video segment: [its first frame, the next segment's), the first from the
  // start, the last to the end. In media time: from the package's first frame, which is the
  // source's frame at the cut (ffprobe puts the fMP4 video's first frame at the encoder's
  // B-frame delay, 2 frames, as the segments carry no edit list).
  void expect_segments_hold_overlapping_cues(const std::string& name,
                                             const std::vector<Cue>& expected) {
    std::vector<ProbedSegment> video = probe_rendition(dir_ / "pkg/240p", scratch_);
    std::vector<std::string> segments = playlist_segments(dir_ / "pkg/" + name + "/index.m3u8");
    ASSERT_EQ(segments.size(), video.size()) << name << ": a WebVTT segment per video segment";
    double zero = video[0].first_pts;
    for (size_t i = 0; i < segments.size(); ++i) {
      double from = i == 0 ? -std::numeric_limits<double>::infinity() : video[i].first_pts - zero;
      double to = i + 1 == video.size() ? std::numeric_limits<double>::infinity()
                                        : video[i + 1].first_pts - zero;
      std::vector<Cue> overlapping;
      for (const Cue& cue : expected)
        if (cue.start < to && cue.end > from) overlapping.push_back(cue);
      std::string file = dir_ / "pkg/" + name + "/" + segments[i];
      // The source's time 0 is at 1.4 s in the fMP4 media, as in TS (segment_container.h).
      EXPECT_NE(read_file(file).find("X-TIMESTAMP-MAP=MPEGTS:126000,LOCAL:00:00:00.000"),
                std::string::npos)
          << file;
      expect_same_cues(ffmpeg_cues(file), overlapping, file);
    }
  }

  TempDir dir_;
  TempDir scratch_;
  static TempDir* shared_;
};

TempDir* PackageSubtitles::shared_ = nullptr;

const nlohmann::json* rendition(const nlohmann::json& report, const std::string& name) {
  for (const nlohmann::json& r : report["package"]["renditions"])
    if (r["name"] == name) return &r;
  return nullptr;
}

std::string outcome(const nlohmann::json& report, int output, int stream) {
  for (const nlohmann::json& s : report["streams"])
    if (s["output"] == output && s["input_stream"] == stream) return s["outcome"];
  return "";
}

TEST_F(PackageSubtitles, TextTracksBecomeWebVttRenditionsInBothManifests) {
  nlohmann::json report = package("cmaf");
  ASSERT_FALSE(report.is_null());
  std::vector<Cue> eng = ffmpeg_cues(input(), "0:s:0");
  std::vector<Cue> fra = ffmpeg_cues(input(), "0:s:1");
  ASSERT_EQ(eng.size(), 4u);
  ASSERT_EQ(fra.size(), 2u);
  EXPECT_EQ(fra[0].text, "<i>Bonjour</i> en haut") << "italics kept, position dropped";
  expect_segments_hold_overlapping_cues("subs_2", eng);
  expect_segments_hold_overlapping_cues("subs_3", fra);
  // DASH: the whole track in one document.
  expect_same_cues(ffmpeg_cues(dir_ / "pkg/subs_2/subs.vtt"), eng, "subs_2/subs.vtt");
  expect_same_cues(ffmpeg_cues(dir_ / "pkg/subs_3/subs.vtt"), fra, "subs_3/subs.vtt");

  std::string master = read_file(dir_ / "pkg/master.m3u8");
  EXPECT_NE(master.find("#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"subs\",NAME=\"en\","
                        "LANGUAGE=\"en\",DEFAULT=NO,AUTOSELECT=YES,URI=\"subs_2/index.m3u8\""),
            std::string::npos)
      << master;
  EXPECT_NE(master.find("NAME=\"Français\",LANGUAGE=\"fr\""), std::string::npos) << master;
  std::regex variant("#EXT-X-STREAM-INF:[^\n]*");
  int variants = 0;
  for (std::sregex_iterator it(master.begin(), master.end(), variant), end; it != end; ++it) {
    ++variants;
    EXPECT_NE(it->str().find("SUBTITLES=\"subs\""), std::string::npos) << it->str();
  }
  EXPECT_EQ(variants, 2);
  std::string mpd = read_file(dir_ / "pkg/manifest.mpd");
  EXPECT_NE(mpd.find("contentType=\"text\" mimeType=\"text/vtt\" lang=\"en\""), std::string::npos)
      << mpd;
  EXPECT_NE(mpd.find("<BaseURL>subs_3/subs.vtt</BaseURL>"), std::string::npos) << mpd;
  // ffprobe reads both manifests; from the MPD the subtitle tracks with their languages (its
  // dash demuxer opens a .vtt only when told to: allowed_extensions).
  ProcessResult hls = run_process({"ffprobe", "-v", "error", dir_ / "pkg/master.m3u8"});
  EXPECT_EQ(hls.exit_code, 0) << hls.err;
  ProcessResult dash =
      run_process({"ffprobe", "-v", "error", "-allowed_extensions", "ALL", "-show_entries",
                   "stream=codec_type,codec_name:stream_tags="
                   "language",
                   "-of", "json", dir_ / "pkg/manifest.mpd"});
  ASSERT_EQ(dash.exit_code, 0) << dash.err;
  std::vector<std::string> languages;
  nlohmann::json probed = nlohmann::json::parse(dash.out);
  for (const nlohmann::json& stream : probed["streams"])
    if (stream["codec_type"] == "subtitle") {
      EXPECT_EQ(stream["codec_name"], "webvtt");
      languages.push_back(stream["tags"].value("language", ""));
    }
  EXPECT_EQ(languages, (std::vector<std::string>{"en", "fr"})) << dash.out;

  // The report lists the text renditions with their cues; the stream list says what became of
  // every subtitle track, the bitmap one too.
  const nlohmann::json* subs = rendition(report, "subs_2");
  ASSERT_NE(subs, nullptr) << report["package"].dump(1);
  EXPECT_EQ((*subs)["type"], "subtitles");
  EXPECT_EQ((*subs)["language"], "en");
  EXPECT_EQ((*subs)["cues"], 4);
  EXPECT_EQ((*subs)["segments"], 4);
  EXPECT_EQ(outcome(report, 0, 2),
            "kept: WebVTT rendition subs_2 (converted by FFmpeg's webvtt "
            "encoder)");
  EXPECT_NE(outcome(report, 0, 3).find("ASS styling and positions dropped"), std::string::npos);
  EXPECT_EQ(outcome(report, 0, 4),
            "dropped: hdmv_pgs_subtitle is a bitmap subtitle: a package carries subtitles as "
            "WebVTT, which is text");
  EXPECT_FALSE(file_exists(dir_ / "pkg/subs_4")) << "no rendition of the bitmap track";
  EXPECT_EQ(outcome(report, 1, 2),
            "dropped: the package carries it once, as the WebVTT rendition subs_2");
}

TEST_F(PackageSubtitles, TrimmedCuesStartFromTheCut) {
  nlohmann::json report = package("hls", {"--start", "1.9"});
  ASSERT_FALSE(report.is_null());
  std::vector<Cue> eng = trimmed(ffmpeg_cues(input(), "0:s:0"), 1.9);
  ASSERT_EQ(eng.size(), 3u) << "the cue across the cut stays, from 0";
  EXPECT_NEAR(eng[0].start, 0, 1e-9);
  expect_segments_hold_overlapping_cues("subs_2", eng);
  EXPECT_FALSE(file_exists(dir_ / "pkg/subs_2/subs.vtt")) << "hls writes no DASH document";
}

TEST_F(PackageSubtitles, SubtitlesNoneKeepsThemOut) {
  nlohmann::json report = package("cmaf", {"--subtitles", "none"});
  ASSERT_FALSE(report.is_null());
  EXPECT_EQ(subtitle_media_line(read_file(dir_ / "pkg/master.m3u8")), "");
  EXPECT_EQ(read_file(dir_ / "pkg/manifest.mpd").find("text/vtt"), std::string::npos);
  EXPECT_FALSE(file_exists(dir_ / "pkg/subs_2"));
  EXPECT_EQ(outcome(report, 0, 2), "dropped: --subtitles none");
  EXPECT_EQ(outcome(report, 0, 4), "dropped: --subtitles none");
}

}  // namespace
}  // namespace tc::testing
