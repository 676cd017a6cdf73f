// Manifests that tell the truth (issue 38) over the customer-like corpus: the source's default
// audio, titles and forced subtitles carried into HLS and DASH; languages as canonical BCP 47
// with a junk tag made "und"; metadata that cannot break out of its attribute (one URI per
// EXT-X-MEDIA, an MPD that parses as XML in the schema's element order); HDR signalled
// (VIDEO-RANGE, CICP descriptors, mdcv/clli) and kept apart from SDR; BANDWIDTH as RFC 8216's
// peak segment bit rate of what ffprobe reads from the files, with the largest audio.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/corpus.h"
#include "tests/support/media_tools.h"
#include "tests/support/package_probe.h"

namespace tc::testing {
namespace {

using nlohmann::json;

// The MPD read by Python's XML parser (never by our code): a parse error fails; each
// AdaptationSet's attributes, Roles, Labels, descriptors and Representations as JSON; and
// every child out of the order DASH-MPD.xsd's sequences give (ISO/IEC 23009-1) listed in
// "order_errors".
constexpr const char* kMpdReader = R"PY(
import json, sys, xml.etree.ElementTree as ET
NS = '{urn:mpeg:dash:schema:mpd:2011}'
BASE = ['FramePacking', 'AudioChannelConfiguration', 'ContentProtection', 'OutputProtection',
        'EssentialProperty', 'SupplementalProperty', 'InbandEventStream', 'Switching',
        'RandomAccess', 'GroupLabel', 'Label', 'ProducerReferenceTime', 'ContentPopularityRate']
ORDER = {
  'MPD': ['ProgramInformation', 'BaseURL', 'Location', 'PatchLocation', 'ServiceDescription',
          'InitializationSet', 'InitializationGroup', 'InitializationPresentation',
          'ContentProtection', 'Period', 'Metrics', 'EssentialProperty', 'SupplementalProperty',
          'UTCTiming', 'LeapSecondInformation'],
  'Period': ['BaseURL', 'SegmentBase', 'SegmentList', 'SegmentTemplate', 'AssetIdentifier',
             'EventStream', 'ServiceDescription', 'ContentProtection', 'AdaptationSet', 'Subset',
             'SupplementalProperty', 'EmptyAdaptationSet', 'GroupLabel', 'Preselection'],
  'AdaptationSet': BASE + ['Accessibility', 'Role', 'Rating', 'Viewpoint', 'ContentComponent',
                           'BaseURL', 'SegmentBase', 'SegmentList', 'SegmentTemplate',
                           'Representation'],
  'Representation': BASE + ['BaseURL', 'ExtendedBandwidth', 'SubRepresentation', 'SegmentBase',
                            'SegmentList', 'SegmentTemplate'],
  'SegmentTemplate': ['Initialization', 'RepresentationIndex', 'FailoverContent',
                      'SegmentTimeline', 'BitstreamSwitching'],
  'SegmentTimeline': ['S'],
}
root = ET.parse(sys.argv[1]).getroot()
errors = []
for element in root.iter():
  name = element.tag.replace(NS, '')
  if name not in ORDER: continue
  at = 0
  for child in element:
    tag = child.tag.replace(NS, '')
    if tag not in ORDER[name] or ORDER[name].index(tag) < at:
      errors.append(name + '/' + tag)
    else:
      at = ORDER[name].index(tag)
sets = []
for s in root.iter(NS + 'AdaptationSet'):
  sets.append({
    'attrs': dict(s.attrib),
    'roles': [r.get('value') for r in s.findall(NS + 'Role')],
    'labels': [l.text for l in s.findall(NS + 'Label')],
    'essential': {p.get('schemeIdUri'): p.get('value') for p in s.findall(NS + 'EssentialProperty')},
    'representations': [dict(r.attrib) for r in s.findall(NS + 'Representation')],
  })
print(json.dumps({'order_errors': errors, 'sets': sets}))
)PY";

json read_mpd(const std::string& path) {
  ProcessResult read = run_process({"/usr/bin/python3", "-c", kMpdReader, path});
  EXPECT_EQ(read.exit_code, 0) << "the MPD is not XML: " << read.err << read_file(path);
  if (read.exit_code != 0) return json();
  return json::parse(read.out);
}

std::vector<json> sets_of(const json& mpd, const std::string& content_type) {
  std::vector<json> sets;
  for (const json& set : mpd["sets"])
    if (set["attrs"].value("contentType", "") == content_type) sets.push_back(set);
  return sets;
}

// The EXT-X-MEDIA lines of `type` in a master playlist, each as its attributes (quoted values
// unquoted); "URI count" is how many URI= the line holds.
std::vector<std::map<std::string, std::string>> media_lines(const std::string& master,
                                                            const std::string& type) {
  std::vector<std::map<std::string, std::string>> lines;
  std::istringstream text(master);
  std::regex attribute(R"(([A-Z0-9-]+)=("[^"]*"|[^,]*))");
  for (std::string line; std::getline(text, line);) {
    if (line.rfind("#EXT-X-MEDIA:TYPE=" + type + ",", 0) != 0) continue;
    std::map<std::string, std::string> attrs;
    int uris = 0;
    std::string rest = line.substr(line.find(':') + 1);
    for (std::sregex_iterator it(rest.begin(), rest.end(), attribute), end; it != end; ++it) {
      std::string value = (*it)[2];
      if (value.size() >= 2 && value.front() == '"') value = value.substr(1, value.size() - 2);
      attrs[(*it)[1]] = value;
      uris += (*it)[1] == "URI";
    }
    attrs["URI count"] = std::to_string(uris);
    lines.push_back(attrs);
  }
  return lines;
}

class ManifestTruth : public ::testing::Test {
 protected:
  // A CMAF package (HLS and DASH over the same segments) of `source`.
  void package(const std::string& source, std::vector<std::string> renditions,
               double segment_s = 1) {
    std::vector<std::string> args = {"run",
                                     source,
                                     "--package",
                                     "cmaf",
                                     "--package-dir",
                                     dir_ / "pkg",
                                     "--segment",
                                     std::to_string(segment_s),
                                     "-q"};
    args.insert(args.end(), renditions.begin(), renditions.end());
    ProcessResult ran = transcode(args);
    ASSERT_EQ(ran.exit_code, 0) << ran.err;
  }
  std::string master() const { return read_file(dir_ / "pkg/master.m3u8"); }

  TempDir dir_;
  TempDir scratch_;
};

TEST_F(ManifestTruth, TheSourcesDefaultAudioTitlesAndForcedSubtitleAreCarried) {
  corpus::three_languages_forced_subtitle(dir_ / "rip.mkv");
  package(dir_ / "rip.mkv", {"-o", "240p"});
  if (HasFatalFailure()) return;
  auto audio = media_lines(master(), "AUDIO");
  // The French 5.1 track also has its stereo rendition (stereo_rendition.h), after it.
  ASSERT_EQ(audio.size(), 4u) << master();
  EXPECT_EQ(audio[3]["NAME"], "Français 5.1 (stereo)");
  EXPECT_EQ(audio[3]["LANGUAGE"], "fr");
  EXPECT_EQ(audio[3]["CHANNELS"], "2");
  EXPECT_EQ(audio[3]["DEFAULT"], "NO");
  audio.pop_back();
  std::map<std::string, std::map<std::string, std::string>> by_language;
  for (const auto& line : audio) by_language[line.at("LANGUAGE")] = line;
  ASSERT_EQ(by_language.size(), 3u) << "LANGUAGE en, ja, fr (not eng, jpn, fra): " << master();
  EXPECT_EQ(by_language["en"]["DEFAULT"], "YES") << master();
  EXPECT_EQ(by_language["en"]["NAME"], "English");
  EXPECT_EQ(by_language["ja"]["DEFAULT"], "NO");
  EXPECT_EQ(by_language["ja"]["NAME"], "日本語");
  EXPECT_EQ(by_language["fr"]["DEFAULT"], "NO");
  EXPECT_EQ(by_language["fr"]["NAME"], "Français 5.1");

  auto subtitles = media_lines(master(), "SUBTITLES");
  ASSERT_EQ(subtitles.size(), 2u) << master();
  for (const auto& line : subtitles) {
    EXPECT_EQ(line.at("LANGUAGE"), "en");
    bool forced = line.at("NAME") == "English (forced)";
    EXPECT_EQ(line.count("FORCED") ? line.at("FORCED") : "NO", forced ? "YES" : "NO")
        << line.at("NAME");
  }
  EXPECT_NE(master().find("CLOSED-CAPTIONS=NONE"), std::string::npos) << master();

  json mpd = read_mpd(dir_ / "pkg/manifest.mpd");
  ASSERT_FALSE(mpd.is_null());
  EXPECT_TRUE(mpd["order_errors"].empty()) << mpd["order_errors"].dump();
  std::map<std::string, json> audio_sets;
  for (const json& set : sets_of(mpd, "audio")) audio_sets[set["attrs"].value("lang", "")] = set;
  ASSERT_EQ(audio_sets.size(), 3u) << mpd.dump();
  EXPECT_EQ(audio_sets["en"]["roles"], json({"main"}));
  EXPECT_EQ(audio_sets["ja"]["roles"], json({"alternate"}));
  EXPECT_EQ(audio_sets["fr"]["roles"], json({"alternate"}));
  EXPECT_EQ(audio_sets["ja"]["labels"], json({"日本語"}));
  std::map<std::string, json> text_roles;
  for (const json& set : sets_of(mpd, "text")) text_roles[set["labels"][0]] = set["roles"];
  EXPECT_EQ(text_roles["English (forced)"], json({"forced-subtitle"})) << mpd.dump();
  EXPECT_EQ(text_roles["English SDH"], json({"subtitle"}));
}

TEST_F(ManifestTruth, MessyMetadataStaysInsideItsAttributes) {
  corpus::messy_metadata(dir_ / "messy.mkv");
  package(dir_ / "messy.mkv", {"-o", "240p"});
  if (HasFatalFailure()) return;
  auto audio = media_lines(master(), "AUDIO");
  ASSERT_EQ(audio.size(), 2u) << master();
  for (const auto& line : audio) EXPECT_EQ(line.at("URI count"), "1") << master();
  EXPECT_EQ(audio[0]["LANGUAGE"], "en");
  EXPECT_EQ(audio[1]["LANGUAGE"], "und") << "the junk tag is not a language: " << master();
  EXPECT_EQ(audio[1]["NAME"], "Commentary   by 'the' director");
  EXPECT_EQ(master().find("example.invalid"), std::string::npos) << master();

  json mpd = read_mpd(dir_ / "pkg/manifest.mpd");
  ASSERT_FALSE(mpd.is_null());
  EXPECT_TRUE(mpd["order_errors"].empty()) << mpd["order_errors"].dump();
  std::vector<json> sets = sets_of(mpd, "audio");
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[1]["attrs"]["lang"], "und");
  EXPECT_EQ(sets[1]["labels"], json({"Commentary\r\n\tby \"the\" director"}))
      << "the title reads back as the source's";
  // The report says it too.
  ProcessResult report = transcode({"run", dir_ / "messy.mkv", "--package", "hls", "--package-dir",
                                    dir_ / "again", "-o", "240p", "--json"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  json renditions = json::parse(report.out)["package"]["renditions"];
  EXPECT_EQ(renditions[2]["language"], "und") << renditions.dump();
}

// Mastering display and content light as a grading tool writes them (HDR10, P3 D65 1000 nits).
void make_hdr10(const std::string& path) {
  ProcessResult made = run_process(
      {"ffmpeg",
       "-hide_banner",
       "-loglevel",
       "error",
       "-y",
       "-f",
       "lavfi",
       "-i",
       "testsrc2=s=320x180:r=25:d=2",
       "-pix_fmt",
       "yuv420p10le",
       "-c:v",
       "libx265",
       "-x265-params",
       "log-level=error:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc:"
       "master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1):"
       "max-cll=1000,400",
       "-color_primaries",
       "bt2020",
       "-color_trc",
       "smpte2084",
       "-colorspace",
       "bt2020nc",
       path});
  ASSERT_EQ(made.exit_code, 0) << made.err;
}

TEST_F(ManifestTruth, HdrIsSignalledAndKeptApartFromSdr) {
  make_hdr10(dir_ / "hdr10.mp4");
  if (HasFatalFailure()) return;
  package(dir_ / "hdr10.mp4",
          {"-o", "hdr", "--codec", "hevc", "-o", "sdr", "--codec", "h264", "--size", "160x90"});
  if (HasFatalFailure()) return;
  EXPECT_EQ(stream_inf_for(master(), "hdr/index.m3u8")["VIDEO-RANGE"], "PQ") << master();
  EXPECT_EQ(stream_inf_for(master(), "sdr/index.m3u8")["VIDEO-RANGE"], "SDR") << master();

  json mpd = read_mpd(dir_ / "pkg/manifest.mpd");
  ASSERT_FALSE(mpd.is_null());
  EXPECT_TRUE(mpd["order_errors"].empty()) << mpd["order_errors"].dump();
  std::vector<json> video = sets_of(mpd, "video");
  ASSERT_EQ(video.size(), 2u) << "one AdaptationSet per range: " << mpd.dump();
  for (const json& set : video) {
    ASSERT_EQ(set["representations"].size(), 1u) << set.dump();
    std::string id = set["representations"][0]["id"];
    json expected = json::object();
    if (id == "hdr")
      expected = {{"urn:mpeg:mpegB:cicp:ColourPrimaries", "9"},
                  {"urn:mpeg:mpegB:cicp:TransferCharacteristics", "16"},
                  {"urn:mpeg:mpegB:cicp:MatrixCoefficients", "9"}};
    EXPECT_EQ(set["essential"], expected) << id;
    EXPECT_EQ(set["attrs"]["par"], "16:9") << id;
    EXPECT_EQ(set["attrs"]["maxWidth"], id == "hdr" ? "320" : "160");
    EXPECT_EQ(set["attrs"]["maxHeight"], id == "hdr" ? "180" : "90");
    EXPECT_EQ(set["representations"][0]["sar"], "1:1");
  }
  // The init segment's mdcv and clli, as ffprobe reads them back onto the stream.
  std::string joined = scratch_ / "hdr.mp4";
  std::string first = playlist_segments(dir_ / "pkg/hdr/index.m3u8").at(0);
  {
    std::ofstream out(joined, std::ios::binary);
    out << read_file(dir_ / "pkg/hdr/init.mp4") << read_file(dir_ / "pkg/hdr/" + first);
  }
  json stream =
      json::parse(ffprobe_json({"-show_streams", "-select_streams", "v:0", joined}))["streams"][0];
  std::vector<std::string> side_data;
  for (const json& entry : stream.value("side_data_list", json::array()))
    side_data.push_back(entry.value("side_data_type", ""));
  EXPECT_EQ(side_data, (std::vector<std::string>{"Mastering display metadata",
                                                 "Content light level metadata"}))
      << stream.dump();
}

// HLG whichever way the source says it: the VUI's ARIB STD-B67 (18), or BT.2020 10-bit (14) with
// an alternative transfer characteristics SEI preferring 18 (as broadcasters and phones write it;
// FFmpeg 5.1's stream parameters say 14, its frames 18). Either way the HEVC rendition is HLG
// (VIDEO-RANGE=HLG, CICP TransferCharacteristics 18, its own VUI arib-std-b67) and the H.264
// rendition SDR, in an AdaptationSet of its own.
void expect_hlg_beside_sdr(const std::string& pkg) {
  std::string master = read_file(pkg + "/master.m3u8");
  EXPECT_EQ(stream_inf_for(master, "hlg/index.m3u8")["VIDEO-RANGE"], "HLG") << master;
  EXPECT_EQ(stream_inf_for(master, "sdr/index.m3u8")["VIDEO-RANGE"], "SDR") << master;
  json mpd = read_mpd(pkg + "/manifest.mpd");
  ASSERT_FALSE(mpd.is_null());
  std::vector<json> video = sets_of(mpd, "video");
  ASSERT_EQ(video.size(), 2u) << "one AdaptationSet per range: " << mpd.dump();
  for (const json& set : video) {
    std::string id = set["representations"][0]["id"];
    json expected = json::object();
    if (id == "hlg")
      expected = {{"urn:mpeg:mpegB:cicp:ColourPrimaries", "9"},
                  {"urn:mpeg:mpegB:cicp:TransferCharacteristics", "18"},
                  {"urn:mpeg:mpegB:cicp:MatrixCoefficients", "9"}};
    EXPECT_EQ(set["essential"], expected) << id;
  }
  json stream = json::parse(ffprobe_json(
      {"-show_streams", "-select_streams", "v:0", pkg + "/hlg/init.mp4"}))["streams"][0];
  EXPECT_EQ(stream.value("color_transfer", ""), "arib-std-b67") << stream.dump();
}

TEST_F(ManifestTruth, HlgIsSignalledWhicheverWayTheSourceSaysIt) {
  ProcessResult made = run_process(
      {"ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
       "testsrc2=s=320x180:r=25:d=2", "-pix_fmt", "yuv420p10le", "-c:v", "libx265", "-x265-params",
       "log-level=error:colorprim=bt2020:transfer=arib-std-b67:colormatrix=bt2020nc",
       dir_ / "vui.mp4"});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  corpus::hlg_hevc_atc(dir_ / "sei.mp4");
  if (HasFatalFailure()) return;
  for (const char* source : {"vui", "sei"}) {
    SCOPED_TRACE(source);
    package(dir_ / (std::string(source) + ".mp4"),
            {"-o", "hlg", "--codec", "hevc", "-o", "sdr", "--codec", "h264", "--size", "160x90"});
    if (HasFatalFailure()) return;
    expect_hlg_beside_sdr(dir_ / "pkg");
    std::filesystem::rename(dir_ / "pkg", dir_ / source);
  }
}

// A short last segment (2 s of media in 0.8 s segments: 0.8, 0.8, 0.4) and three audio tracks
// of which the default is not the largest: BANDWIDTH is within 10 % (Apple's limit) above the
// peak segment bit rate as RFC 8216 defines it, measured from the files by ffprobe, of the video
// plus the largest audio; AVERAGE-BANDWIDTH the same with averages.
TEST_F(ManifestTruth, BandwidthIsThePeakSegmentBitRateWithTheLargestAudio) {
  corpus::three_languages_forced_subtitle(dir_ / "rip.mkv");
  package(dir_ / "rip.mkv", {"-o", "240p", "--bitrate", "300k"}, 0.8);
  if (HasFatalFailure()) return;
  std::vector<ProbedSegment> video = probe_rendition(dir_ / "pkg/240p", scratch_);
  ASSERT_EQ(video.size(), 3u);
  int64_t largest_audio = 0;
  for (const char* audio : {"audio_1", "audio_2", "audio_3"})
    largest_audio = std::max(largest_audio,
                             peak_bitrate(probe_rendition(dir_ / "pkg/" + audio, scratch_, "a:0")));
  double peak = double(peak_bitrate(video) + largest_audio);
  double bandwidth = std::stod(stream_inf_for(master(), "240p/index.m3u8")["BANDWIDTH"]);
  EXPECT_GE(bandwidth, peak * 0.98) << master();
  EXPECT_LE(bandwidth, peak * 1.10) << master();
  // The video's share alone: the short last segment (its keyframe in 0.4 s) is 19 % above the
  // peak when counted by itself.
  EXPECT_NEAR(bandwidth - double(largest_audio), double(peak_bitrate(video)),
              peak_bitrate(video) * 0.05)
      << master();
}

}  // namespace
}  // namespace tc::testing
