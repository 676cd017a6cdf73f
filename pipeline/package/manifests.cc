#include "pipeline/package/manifests.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "pipeline/spec/package_spec.h"

namespace tc::package {
namespace {

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

// ISO 8601 duration: "PT12.480S".
std::string iso_duration(double seconds) {
  return "PT" + fixed(seconds, 3) + "S";
}

std::string rate_text(AVRational rate) {
  if (rate.num <= 0 || rate.den <= 0) return "";
  return rate.den == 1 ? std::to_string(rate.num)
                       : std::to_string(rate.num) + "/" + std::to_string(rate.den);
}

// The audio the HLS variants are played with: the first audio rendition (DEFAULT=YES).
const TrackMeasure* default_audio(const PackageMeasure& package) {
  return package.audio.empty() ? nullptr : &package.audio.front();
}

std::string codecs_of(const PackageMeasure& package, const TrackMeasure& video) {
  std::string codecs = video.codec;
  if (const TrackMeasure* audio = default_audio(package); audio && !audio->codec.empty())
    codecs += (codecs.empty() ? "" : ",") + audio->codec;
  return codecs;
}

int64_t average_bandwidth(const PackageMeasure& package, const TrackMeasure& video) {
  const TrackMeasure* audio = default_audio(package);
  return video.average_bitrate() + (audio ? audio->average_bitrate() : 0);
}

// fMP4 segments (EXT-X-MAP) need version 6 and up; 7 is what our playlists otherwise say.
// MPEG-TS segments with decimal EXTINF durations need 3: the oldest clients read it.
int hls_version(SegmentFormat format) {
  return format == SegmentFormat::kTs ? 3 : 7;
}

std::string audio_name(const TrackMeasure& audio) {
  return audio.language.empty() ? audio.name : audio.language;
}

// "$RepresentationID$"-free template: the rendition's directory and the numbered name.
std::string dash_media_template(const TrackMeasure& track, const std::string& segment_name) {
  std::string name = segment_name;
  size_t mark = name.find("{n}");
  if (mark != std::string::npos) name.replace(mark, 3, "$Number%05d$");
  return track.name + "/" + name + ".m4s";
}

// The timeline is in the segments' media time. The mp4 muxer writes no edit list into an init
// segment written before the first packet, and starts each track's media time at its first
// packet's pts: AAC's first packet is 1024 priming samples before 0, so without an
// offset the priming would be presented at 0 and the real audio 21 ms after the video's first
// frame. The presentationTimeOffset (the media time shown at presentation 0, written when
// positive) puts every track's pts 0 at presentation 0, where players (dash.js, Shaka) place
// it; the priming falls before the period and is cut. (No offset can move a track whose first
// pts is past 0 later: it is presented from its media time.)
int64_t presentation_time_offset(const TrackMeasure& track) {
  return std::max<int64_t>(-track.media_offset, 0);
}

void dash_timeline(std::ostringstream& mpd, const TrackMeasure& track) {
  mpd << "          <SegmentTimeline>\n";
  for (size_t i = 0; i < track.segments.size(); ++i) {
    const SegmentMeasure& segment = track.segments[i];
    mpd << "            <S ";
    if (i == 0) mpd << "t=\"" << segment.start - track.media_offset << "\" ";
    mpd << "d=\"" << segment.duration << "\"/>\n";
  }
  mpd << "          </SegmentTimeline>\n";
}

void dash_representation(std::ostringstream& mpd, const TrackMeasure& track,
                         const std::string& segment_name) {
  mpd << "      <Representation id=\"" << track.name << "\" bandwidth=\"" << track.peak_bitrate()
      << "\"";
  if (!track.codec.empty()) mpd << " codecs=\"" << track.codec << "\"";
  if (track.type == AVMEDIA_TYPE_VIDEO) {
    mpd << " width=\"" << track.width << "\" height=\"" << track.height << "\"";
    if (std::string rate = rate_text(track.frame_rate); !rate.empty())
      mpd << " frameRate=\"" << rate << "\"";
  } else {
    mpd << " audioSamplingRate=\"" << track.sample_rate << "\"";
  }
  mpd << ">\n";
  if (track.type == AVMEDIA_TYPE_AUDIO)
    mpd << "        <AudioChannelConfiguration schemeIdUri=\"urn:mpeg:dash:23003:3:audio_channel_"
           "configuration:2011\" value=\""
        << track.channels << "\"/>\n";
  mpd << "        <SegmentTemplate timescale=\"" << track.time_base.den << "\" initialization=\""
      << track.name << "/init.mp4\" media=\"" << dash_media_template(track, segment_name)
      << "\" startNumber=\"1\"";
  if (int64_t offset = presentation_time_offset(track); offset > 0)
    mpd << " presentationTimeOffset=\"" << offset << "\"";
  mpd << ">\n";
  dash_timeline(mpd, track);
  mpd << "        </SegmentTemplate>\n      </Representation>\n";
}

// A track title in an MPD (XML text) and in a playlist's quoted string (which cannot hold '"').
std::string xml_text(const std::string& text) {
  std::string escaped;
  for (char c : text)
    escaped += c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : std::string(1, c);
  return escaped;
}
std::string quoted_string(std::string text) {
  std::replace(text.begin(), text.end(), '"', '\'');
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

// A subtitle rendition's NAME: its title, else its language, else its directory; unique in the
// group (HLS requires it), so a repeat gets its directory too.
std::string subtitle_name(const PackageMeasure& package, size_t index) {
  auto name_of = [](const TextMeasure& text) {
    return !text.title.empty() ? text.title : !text.language.empty() ? text.language : text.name;
  };
  std::string name = name_of(package.text[index]);
  for (size_t i = 0; i < index; ++i)
    if (name_of(package.text[i]) == name) return name + " (" + package.text[index].name + ")";
  return name;
}

// Subtitles are never DEFAULT (a viewer turns them on), AUTOSELECT so that a player may pick
// the viewer's language.
void hls_subtitle_media(std::ostringstream& m3u8, const PackageMeasure& package) {
  for (size_t i = 0; i < package.text.size(); ++i) {
    const TextMeasure& text = package.text[i];
    m3u8 << "#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"subs\",NAME=\""
         << quoted_string(subtitle_name(package, i)) << "\"";
    if (!text.language.empty()) m3u8 << ",LANGUAGE=\"" << text.language << "\"";
    m3u8 << ",DEFAULT=NO,AUTOSELECT=YES,URI=\"" << text.name << "/" << kHlsMediaPlaylist << "\"\n";
  }
}

// DASH: the whole track as one WebVTT document by BaseURL. dash.js reads a text Representation
// without SegmentTemplate/List/Base as one sidecar file, and one with them as fragmented text
// (wvtt or stpp in fMP4 boxes, which plain .vtt segments are not); a VOD package gains nothing
// from segmenting a few kilobytes of text.
void dash_text_set(std::ostringstream& mpd, const TextMeasure& text, int id, double duration) {
  mpd << "    <AdaptationSet id=\"" << id << "\" contentType=\"text\" mimeType=\"text/vtt\"";
  if (!text.language.empty()) mpd << " lang=\"" << text.language << "\"";
  mpd << ">\n      <Role schemeIdUri=\"urn:mpeg:dash:role:2011\" value=\"subtitle\"/>\n";
  if (!text.title.empty()) mpd << "      <Label>" << xml_text(text.title) << "</Label>\n";
  int64_t bandwidth = duration > 0 ? int64_t(text.document_bytes * 8 / duration) : 0;
  mpd << "      <Representation id=\"" << text.name << "\" bandwidth=\""
      << std::max<int64_t>(bandwidth, 1) << "\">\n        <BaseURL>" << text.name << "/"
      << kWebVttDocument << "</BaseURL>\n      </Representation>\n    </AdaptationSet>\n";
}

double longest_duration(const PackageMeasure& package) {
  double longest = 0;
  for (const auto* tracks : {&package.video, &package.audio})
    for (const TrackMeasure& track : *tracks) longest = std::max(longest, track.duration_s());
  return longest;
}

}  // namespace

int64_t hls_peak_bandwidth(const PackageMeasure& package, const TrackMeasure& video) {
  const TrackMeasure* audio = default_audio(package);
  return video.peak_bitrate() + (audio ? audio->peak_bitrate() : 0);
}

std::string hls_master(const PackageMeasure& package) {
  std::ostringstream m3u8;
  m3u8 << "#EXTM3U\n#EXT-X-VERSION:" << hls_version(package.segment_format)
       << "\n#EXT-X-INDEPENDENT-SEGMENTS\n";
  for (size_t i = 0; i < package.audio.size(); ++i) {
    const TrackMeasure& audio = package.audio[i];
    m3u8 << "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"audio\",NAME=\"" << audio_name(audio) << "\"";
    if (!audio.language.empty()) m3u8 << ",LANGUAGE=\"" << audio.language << "\"";
    m3u8 << ",DEFAULT=" << (i == 0 ? "YES" : "NO") << ",AUTOSELECT=YES,CHANNELS=\""
         << audio.channels << "\",URI=\"" << audio.name << "/" << kHlsMediaPlaylist << "\"\n";
  }
  hls_subtitle_media(m3u8, package);
  for (const TrackMeasure& video : package.video) {
    m3u8 << "#EXT-X-STREAM-INF:BANDWIDTH=" << hls_peak_bandwidth(package, video)
         << ",AVERAGE-BANDWIDTH=" << average_bandwidth(package, video)
         << ",RESOLUTION=" << video.width << "x" << video.height;
    if (video.frame_rate.num > 0) m3u8 << ",FRAME-RATE=" << fixed(av_q2d(video.frame_rate), 3);
    if (std::string codecs = codecs_of(package, video); !codecs.empty())
      m3u8 << ",CODECS=\"" << codecs << "\"";
    if (!package.audio.empty()) m3u8 << ",AUDIO=\"audio\"";
    if (!package.text.empty()) m3u8 << ",SUBTITLES=\"subs\"";
    m3u8 << "\n" << video.name << "/" << kHlsMediaPlaylist << "\n";
  }
  return m3u8.str();
}

std::string hls_media_playlist(const TrackMeasure& track, const std::string& segment_name) {
  long target = 1;
  for (const SegmentMeasure& segment : track.segments)
    target = std::max(target, std::lround(track.seconds(segment.duration)));
  const SegmentContainer& container = segment_container(track.format);
  std::ostringstream m3u8;
  m3u8 << "#EXTM3U\n#EXT-X-VERSION:" << hls_version(track.format)
       << "\n#EXT-X-TARGETDURATION:" << target
       << "\n#EXT-X-MEDIA-SEQUENCE:1\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-INDEPENDENT-SEGMENTS\n";
  if (container.has_init()) m3u8 << "#EXT-X-MAP:URI=\"" << container.init_name << "\"\n";
  for (size_t i = 0; i < track.segments.size(); ++i)
    m3u8 << "#EXTINF:" << fixed(track.seconds(track.segments[i].duration), 6) << ",\n"
         << segment_file(container, segment_name, int(i) + 1) << "\n";
  m3u8 << "#EXT-X-ENDLIST\n";
  return m3u8.str();
}

std::string dash_mpd(const PackageMeasure& package) {
  double duration = longest_duration(package);
  double longest_segment = 0;
  for (const TrackMeasure& track : package.video)
    for (const SegmentMeasure& segment : track.segments)
      longest_segment = std::max(longest_segment, track.seconds(segment.duration));
  std::ostringstream mpd;
  mpd << "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
      << "<MPD xmlns=\"urn:mpeg:dash:schema:mpd:2011\" "
         "profiles=\"urn:mpeg:dash:profile:isoff-live:2011\" type=\"static\" "
         "mediaPresentationDuration=\""
      << iso_duration(duration) << "\" minBufferTime=\"" << iso_duration(longest_segment)
      << "\">\n  <Period id=\"0\" start=\"PT0S\">\n";
  int id = 0;
  if (!package.video.empty()) {
    mpd << "    <AdaptationSet id=\"" << id++
        << "\" contentType=\"video\" mimeType=\"video/mp4\" segmentAlignment=\"true\" "
           "startWithSAP=\"1\">\n";
    for (const TrackMeasure& video : package.video)
      dash_representation(mpd, video, package.segment_name);
    mpd << "    </AdaptationSet>\n";
  }
  // One set per audio track: tracks in different languages are not interchangeable
  // representations of one another.
  for (const TrackMeasure& audio : package.audio) {
    mpd << "    <AdaptationSet id=\"" << id++
        << "\" contentType=\"audio\" mimeType=\"audio/mp4\" segmentAlignment=\"true\" "
           "startWithSAP=\"1\"";
    if (!audio.language.empty()) mpd << " lang=\"" << audio.language << "\"";
    mpd << ">\n";
    dash_representation(mpd, audio, package.segment_name);
    mpd << "    </AdaptationSet>\n";
  }
  for (const TextMeasure& text : package.text) dash_text_set(mpd, text, id++, duration);
  mpd << "  </Period>\n</MPD>\n";
  return mpd.str();
}

std::string hls_subtitle_playlist(const std::vector<SegmentRange>& segments,
                                  const std::string& segment_name) {
  long target = 1;
  for (const SegmentRange& segment : segments)
    target = std::max(target, std::lround(segment.duration_us / 1e6));
  std::ostringstream m3u8;
  m3u8 << "#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:" << target
       << "\n#EXT-X-MEDIA-SEQUENCE:1\n#EXT-X-PLAYLIST-TYPE:VOD\n";
  for (size_t i = 0; i < segments.size(); ++i)
    m3u8 << "#EXTINF:" << fixed(segments[i].duration_us / 1e6, 6) << ",\n"
         << segment_file_name(segment_name, int(i) + 1) << ".vtt\n";
  m3u8 << "#EXT-X-ENDLIST\n";
  return m3u8.str();
}

}  // namespace tc::package
