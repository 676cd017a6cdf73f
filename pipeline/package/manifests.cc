#include "pipeline/package/manifests.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <sstream>

#include "pipeline/package/iframe_playlist.h"
#include "pipeline/package/manifest_quote.h"
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

// The audio a player starts with (HLS DEFAULT=YES, DASH Role main): the source's default
// track, else the first.
const TrackMeasure* default_audio(const PackageMeasure& package) {
  for (const TrackMeasure& audio : package.audio)
    if (audio.disposition & AV_DISPOSITION_DEFAULT) return &audio;
  return package.audio.empty() ? nullptr : &package.audio.front();
}

// Every format a variant may play (RFC 8216 4.3.4.2: CODECS lists each one in any rendition
// of its groups): the video's and each distinct audio codec.
std::string codecs_of(const PackageMeasure& package, const TrackMeasure& video) {
  std::vector<std::string> codecs;
  if (!video.codec.empty()) codecs.push_back(video.codec);
  for (const TrackMeasure& audio : package.audio)
    if (!audio.codec.empty() &&
        std::find(codecs.begin(), codecs.end(), audio.codec) == codecs.end())
      codecs.push_back(audio.codec);
  std::string text;
  for (const std::string& codec : codecs) text += (text.empty() ? "" : ",") + codec;
  return text;
}

// A variant's bandwidth counts the audio rendition that needs the most: a player may pick any.
int64_t largest_audio(const PackageMeasure& package, int64_t (TrackMeasure::*bitrate)() const) {
  int64_t largest = 0;
  for (const TrackMeasure& audio : package.audio) largest = std::max(largest, (audio.*bitrate)());
  return largest;
}

int64_t average_bandwidth(const PackageMeasure& package, const TrackMeasure& video) {
  return video.average_bitrate() + largest_audio(package, &TrackMeasure::average_bitrate);
}

// The transfer a video rendition's pictures are coded for: HLS VIDEO-RANGE, and what keeps
// HDR and SDR renditions out of one DASH AdaptationSet.
const char* video_range(const TrackMeasure& video) {
  if (video.transfer == AVCOL_TRC_SMPTE2084) return "PQ";
  if (video.transfer == AVCOL_TRC_ARIB_STD_B67) return "HLG";
  return "SDR";
}

bool any_hdr(const PackageMeasure& package) {
  return std::any_of(package.video.begin(), package.video.end(), [](const TrackMeasure& video) {
    return std::string_view(video_range(video)) != "SDR";
  });
}

// fMP4 segments (EXT-X-MAP) need version 6 and up; 7 is what our playlists otherwise say.
// MPEG-TS segments with decimal EXTINF durations need 3: the oldest clients read it.
int hls_version(SegmentFormat format) {
  return format == SegmentFormat::kTs ? 3 : 7;
}

// A rendition's NAME: its title, else its language, else its directory; unique in its group
// (HLS requires it), so a repeat gets its directory too.
template <typename Track>
std::string rendition_name(const std::vector<Track>& tracks, size_t index) {
  auto name_of = [](const Track& track) {
    return !track.title.empty()      ? track.title
           : !track.language.empty() ? track.language
                                     : track.name;
  };
  std::string name = name_of(tracks[index]);
  for (size_t i = 0; i < index; ++i)
    if (name_of(tracks[i]) == name) return name + " (" + tracks[index].name + ")";
  return name;
}

// An audio rendition's NAME: a stereo rendition beside its surround track (the same source
// stream) is that track's name and "(stereo)".
std::string audio_name(const std::vector<TrackMeasure>& audio, size_t index) {
  for (size_t i = 0; i < index; ++i)
    if (audio[index].source_stream >= 0 && audio[i].source_stream == audio[index].source_stream)
      return rendition_name(audio, i) + " (stereo)";
  return rendition_name(audio, index);
}

// The audio tracks of one source stream (a surround track and its stereo rendition): one
// AdaptationSet, since they are the same sound; tracks of different streams (languages) are not
// interchangeable representations of one another.
std::vector<std::vector<const TrackMeasure*>> audio_sets(const PackageMeasure& package) {
  std::vector<std::vector<const TrackMeasure*>> sets;
  for (const TrackMeasure& audio : package.audio) {
    auto same = std::find_if(sets.begin(), sets.end(), [&](const auto& set) {
      return audio.source_stream >= 0 && set.front()->source_stream == audio.source_stream;
    });
    if (same == sets.end())
      sets.push_back({&audio});
    else
      same->push_back(&audio);
  }
  return sets;
}

// "$RepresentationID$"-free template: the rendition's directory and the numbered name.
std::string dash_media_template(const TrackMeasure& track, const std::string& segment_name) {
  std::string name = segment_name;
  size_t mark = name.find("{n}");
  if (mark != std::string::npos) name.replace(mark, 3, "$Number%05d$");
  return track.name + "/" + name + ".m4s";
}

// The timeline is in the segments' media time: the source's times plus media_shift, the same
// instant in every track. The presentationTimeOffset (the media time shown at the period's
// start) is the package's first content in each track's media time, so every track is placed
// on one timeline (DASH-IF IOP 3.2.7); what comes before it (AAC's priming) is cut.
int64_t presentation_time_offset(const TrackMeasure& track, int64_t start_us) {
  return av_rescale_q(start_us, {1, 1000000}, track.time_base) + track.media_shift;
}

void dash_timeline(std::ostringstream& mpd, const TrackMeasure& track) {
  mpd << "          <SegmentTimeline>\n";
  for (size_t i = 0; i < track.segments.size(); ++i) {
    const SegmentMeasure& segment = track.segments[i];
    mpd << "            <S ";
    if (i == 0) mpd << "t=\"" << segment.start + track.media_shift << "\" ";
    mpd << "d=\"" << segment.duration << "\"/>\n";
  }
  mpd << "          </SegmentTimeline>\n";
}

// "16:9" from a width and height (in square pixels).
std::string ratio_text(int64_t width, int64_t height) {
  int64_t divisor = std::gcd(width, height);
  if (divisor <= 0) return "";
  return std::to_string(width / divisor) + ":" + std::to_string(height / divisor);
}

// The sample aspect ratio, 1:1 where the encoder left it unset.
AVRational sar_of(const TrackMeasure& video) {
  AVRational sar = video.sample_aspect_ratio;
  return sar.num > 0 && sar.den > 0 ? sar : AVRational{1, 1};
}

// The picture's displayed aspect ratio.
std::string par_of(const TrackMeasure& video) {
  AVRational sar = sar_of(video);
  return ratio_text(int64_t(video.width) * sar.num, int64_t(video.height) * sar.den);
}

void dash_representation(std::ostringstream& mpd, const TrackMeasure& track,
                         const std::string& segment_name, int64_t start_us) {
  mpd << "      <Representation" << xml_attribute("id", track.name)
      << xml_attribute("bandwidth", std::to_string(track.peak_bitrate()));
  if (!track.codec.empty()) mpd << xml_attribute("codecs", track.codec);
  if (track.type == AVMEDIA_TYPE_VIDEO) {
    AVRational sar = sar_of(track);
    mpd << " width=\"" << track.width << "\" height=\"" << track.height << "\""
        << xml_attribute("sar", std::to_string(sar.num) + ":" + std::to_string(sar.den));
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
  mpd << "        <SegmentTemplate timescale=\"" << track.time_base.den << "\""
      << xml_attribute("initialization", track.name + "/init.mp4")
      << xml_attribute("media", dash_media_template(track, segment_name)) << " startNumber=\"1\"";
  mpd << " presentationTimeOffset=\"" << presentation_time_offset(track, start_us) << "\"";
  mpd << ">\n";
  dash_timeline(mpd, track);
  mpd << "        </SegmentTemplate>\n      </Representation>\n";
}

// Subtitles are never DEFAULT (a viewer turns them on), AUTOSELECT so that a player may pick
// the viewer's language; a forced track (signs, foreign dialogue) is FORCED=YES, which players
// show without the viewer turning subtitles on.
void hls_subtitle_media(std::ostringstream& m3u8, const PackageMeasure& package) {
  for (size_t i = 0; i < package.text.size(); ++i) {
    const TextMeasure& text = package.text[i];
    m3u8 << "#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"subs\","
         << hls_quoted("NAME", rendition_name(package.text, i));
    if (!text.language.empty()) m3u8 << "," << hls_quoted("LANGUAGE", text.language);
    m3u8 << ",DEFAULT=NO,AUTOSELECT=YES";
    if (text.disposition & AV_DISPOSITION_FORCED) m3u8 << ",FORCED=YES";
    m3u8 << "," << hls_quoted("URI", text.name + "/" + kHlsMediaPlaylist) << "\n";
  }
}

// A set's Label (its track's title) and Role, in the schema's order: Label (from
// RepresentationBaseType) before Role.
void dash_label_and_role(std::ostringstream& mpd, const std::string& title, const char* role) {
  if (!title.empty()) mpd << "      <Label>" << xml_text(title) << "</Label>\n";
  mpd << "      <Role schemeIdUri=\"urn:mpeg:dash:role:2011\"" << xml_attribute("value", role)
      << "/>\n";
}

// DASH: the whole track as one WebVTT document by BaseURL. dash.js reads a text Representation
// without SegmentTemplate/List/Base as one sidecar file, and one with them as fragmented text
// (wvtt or stpp in fMP4 boxes, which plain .vtt segments are not); a VOD package gains nothing
// from segmenting a few kilobytes of text.
// A forced track's Role is forced-subtitle (ISO/IEC 23009-1 5.8.5.5, DASH-IF IOP).
void dash_text_set(std::ostringstream& mpd, const TextMeasure& text, int id, double duration) {
  mpd << "    <AdaptationSet id=\"" << id << "\" contentType=\"text\" mimeType=\"text/vtt\"";
  if (!text.language.empty()) mpd << xml_attribute("lang", text.language);
  mpd << ">\n";
  dash_label_and_role(mpd, text.title,
                      text.disposition & AV_DISPOSITION_FORCED ? "forced-subtitle" : "subtitle");
  int64_t bandwidth = duration > 0 ? int64_t(text.document_bytes * 8 / duration) : 0;
  mpd << "      <Representation" << xml_attribute("id", text.name) << " bandwidth=\""
      << std::max<int64_t>(bandwidth, 1) << "\">\n        <BaseURL>"
      << xml_text(text.name + "/" + kWebVttDocument)
      << "</BaseURL>\n      </Representation>\n    </AdaptationSet>\n";
}

// Video AdaptationSets: renditions a player may switch between, so one per codec family and
// video range (an HDR HEVC rung and an SDR H.264 rung are not interchangeable), in output order.
std::vector<std::vector<const TrackMeasure*>> video_sets(const PackageMeasure& package) {
  std::vector<std::vector<const TrackMeasure*>> sets;
  auto key = [](const TrackMeasure& video) {
    return video.codec.substr(0, 4) + "/" + video_range(video);
  };
  for (const TrackMeasure& video : package.video) {
    auto same = std::find_if(sets.begin(), sets.end(),
                             [&](const auto& set) { return key(*set.front()) == key(video); });
    if (same == sets.end())
      sets.push_back({&video});
    else
      same->push_back(&video);
  }
  return sets;
}

// An HDR set's colour as DASH-IF IOP signals it: CICP code points (ISO/IEC 23091-2) for the
// primaries, transfer and matrix, as EssentialProperty (a player that does not know them
// must not play the set). SDR sets carry none.
void dash_colour(std::ostringstream& mpd, const TrackMeasure& video) {
  if (std::string_view(video_range(video)) == "SDR") return;
  const std::pair<const char*, int> properties[] = {
      {"ColourPrimaries", int(video.primaries)},
      {"TransferCharacteristics", int(video.transfer)},
      {"MatrixCoefficients", int(video.matrix)}};
  for (const auto& [name, value] : properties)
    mpd << "      <EssentialProperty"
        << xml_attribute("schemeIdUri", std::string("urn:mpeg:mpegB:cicp:") + name)
        << xml_attribute("value", std::to_string(value)) << "/>\n";
}

void dash_video_set(std::ostringstream& mpd, const std::vector<const TrackMeasure*>& set, int id,
                    const std::string& segment_name, int64_t start_us) {
  int max_width = 0, max_height = 0;
  std::string par = par_of(*set.front());
  for (const TrackMeasure* video : set) {
    max_width = std::max(max_width, video->width);
    max_height = std::max(max_height, video->height);
    if (par_of(*video) != par) par.clear();
  }
  mpd << "    <AdaptationSet id=\"" << id
      << "\" contentType=\"video\" mimeType=\"video/mp4\" segmentAlignment=\"true\" "
         "startWithSAP=\"1\"";
  if (!par.empty()) mpd << xml_attribute("par", par);
  mpd << " maxWidth=\"" << max_width << "\" maxHeight=\"" << max_height << "\">\n";
  dash_colour(mpd, *set.front());
  for (const TrackMeasure* video : set) dash_representation(mpd, *video, segment_name, start_us);
  mpd << "    </AdaptationSet>\n";
}

double longest_duration(const PackageMeasure& package) {
  double longest = 0;
  for (const auto* tracks : {&package.video, &package.audio})
    for (const TrackMeasure& track : *tracks) longest = std::max(longest, track.duration_s());
  return longest;
}

}  // namespace

int64_t presentation_start_us(const PackageMeasure& package) {
  int64_t start = INT64_MAX;
  for (const auto* tracks : {&package.video, &package.audio})
    for (const TrackMeasure& track : *tracks)
      start = std::min(start, av_rescale_q(track.content_start, track.time_base, {1, 1000000}));
  return start == INT64_MAX ? 0 : start;
}

int64_t hls_peak_bandwidth(const PackageMeasure& package, const TrackMeasure& video) {
  return video.peak_bitrate() + largest_audio(package, &TrackMeasure::peak_bitrate);
}

std::string hls_master(const PackageMeasure& package) {
  std::ostringstream m3u8;
  m3u8 << "#EXTM3U\n#EXT-X-VERSION:" << hls_version(package.segment_format)
       << "\n#EXT-X-INDEPENDENT-SEGMENTS\n";
  const TrackMeasure* main_audio = default_audio(package);
  for (size_t i = 0; i < package.audio.size(); ++i) {
    const TrackMeasure& audio = package.audio[i];
    m3u8 << "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"audio\","
         << hls_quoted("NAME", audio_name(package.audio, i));
    if (!audio.language.empty()) m3u8 << "," << hls_quoted("LANGUAGE", audio.language);
    m3u8 << ",DEFAULT=" << (&audio == main_audio ? "YES" : "NO") << ",AUTOSELECT=YES,"
         << hls_quoted("CHANNELS", std::to_string(audio.channels)) << ","
         << hls_quoted("URI", audio.name + "/" + kHlsMediaPlaylist) << "\n";
  }
  hls_subtitle_media(m3u8, package);
  bool hdr = any_hdr(package);
  for (const TrackMeasure& video : package.video) {
    m3u8 << "#EXT-X-STREAM-INF:BANDWIDTH=" << hls_peak_bandwidth(package, video)
         << ",AVERAGE-BANDWIDTH=" << average_bandwidth(package, video)
         << ",RESOLUTION=" << video.width << "x" << video.height;
    if (video.frame_rate.num > 0) m3u8 << ",FRAME-RATE=" << fixed(av_q2d(video.frame_rate), 3);
    if (std::string codecs = codecs_of(package, video); !codecs.empty())
      m3u8 << "," << hls_quoted("CODECS", codecs);
    // Every variant says its range once one is HDR, so that a player never switches between
    // an HDR and an SDR rung; an SDR-only ladder is left as it was (SDR is the default).
    if (hdr) m3u8 << ",VIDEO-RANGE=" << video_range(video);
    if (!package.audio.empty()) m3u8 << ",AUDIO=\"audio\"";
    if (!package.text.empty()) m3u8 << ",SUBTITLES=\"subs\"";
    // No CEA-608/708 captions are carried in the video (the encoders are given none).
    m3u8 << ",CLOSED-CAPTIONS=NONE\n" << video.name << "/" << kHlsMediaPlaylist << "\n";
  }
  // Trick play (RFC 8216 4.3.4.3): each rendition's keyframes, as byte ranges of its segments.
  for (const TrackMeasure& video : package.video) {
    if (iframe_segments(video).empty()) continue;
    m3u8 << "#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=" << iframe_peak_bitrate(video)
         << ",RESOLUTION=" << video.width << "x" << video.height;
    if (!video.codec.empty()) m3u8 << "," << hls_quoted("CODECS", video.codec);
    if (hdr) m3u8 << ",VIDEO-RANGE=" << video_range(video);
    m3u8 << "," << hls_quoted("URI", video.name + "/" + kHlsIFramePlaylist) << "\n";
  }
  return m3u8.str();
}

long hls_target_duration(const PackageMeasure& package) {
  long target = 1;
  for (const auto* tracks : {&package.video, &package.audio})
    for (const TrackMeasure& track : *tracks)
      for (const SegmentMeasure& segment : track.segments)
        target = std::max(target, std::lround(track.seconds(segment.duration)));
  return target;
}

std::string hls_media_playlist(const TrackMeasure& track, const std::string& segment_name,
                               long target) {
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
  int64_t start_us = presentation_start_us(package);
  for (const auto& set : video_sets(package))
    dash_video_set(mpd, set, id++, package.segment_name, start_us);
  // One set per source audio track (with its stereo rendition, if any). The default track's
  // Role is main, the others' alternate.
  const TrackMeasure* main_audio = default_audio(package);
  for (const auto& set : audio_sets(package)) {
    const TrackMeasure& audio = *set.front();
    mpd << "    <AdaptationSet id=\"" << id++
        << "\" contentType=\"audio\" mimeType=\"audio/mp4\" segmentAlignment=\"true\" "
           "startWithSAP=\"1\"";
    if (!audio.language.empty()) mpd << xml_attribute("lang", audio.language);
    mpd << ">\n";
    dash_label_and_role(mpd, audio.title, &audio == main_audio ? "main" : "alternate");
    for (const TrackMeasure* track : set)
      dash_representation(mpd, *track, package.segment_name, start_us);
    mpd << "    </AdaptationSet>\n";
  }
  for (const TextMeasure& text : package.text) dash_text_set(mpd, text, id++, duration);
  mpd << "  </Period>\n</MPD>\n";
  return mpd.str();
}

std::string hls_subtitle_playlist(const std::vector<SegmentRange>& segments,
                                  const std::string& segment_name, long target) {
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
