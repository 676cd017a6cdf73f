#include "pipeline/package/package_writer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "pipeline/package/iframe_playlist.h"
#include "pipeline/package/language_tag.h"
#include "pipeline/package/manifests.h"
#include "pipeline/plan/segment_container.h"
#include "pipeline/plan/stereo_rendition.h"
#include "pipeline/spec/package_spec.h"

namespace tc::package {
namespace {

// The track's language as BCP 47 (canonical: "en" for "eng"); empty when it has none or says
// "und"; "und" when its tag is not a language tag at all (the report shows it so).
std::string language_of(const AVStream& stream) {
  const AVDictionaryEntry* language = av_dict_get(stream.metadata, "language", nullptr, 0);
  if (!language || !*language->value) return "";
  std::string canonical = canonical_language(language->value).value_or("und");
  return canonical == "und" && std::string_view(language->value) == "und" ? "" : canonical;
}

std::string title_of(const AVStream& stream) {
  const AVDictionaryEntry* title = av_dict_get(stream.metadata, "title", nullptr, 0);
  return title ? title->value : "";
}

bool writes_hls(PackageKind kind) {
  return kind == PackageKind::kHls || kind == PackageKind::kCmaf;
}
bool writes_dash(PackageKind kind) {
  return kind == PackageKind::kDash || kind == PackageKind::kCmaf;
}

bool track_keyframes_aligned(const TrackMeasure& track, const TrackMeasure& first) {
  if (track.segments.size() != first.segments.size()) return false;
  double half_frame = first.frame_rate.num > 0 ? 0.5 / av_q2d(first.frame_rate) : 0.02;
  for (size_t i = 0; i < track.segments.size(); ++i) {
    if (!track.segments[i].starts_with_keyframe) return false;
    double at = track.seconds(track.segments[i].start);
    if (std::abs(at - first.seconds(first.segments[i].start)) > half_frame) return false;
  }
  return true;
}

RenditionReport rendition_report(const TrackMeasure& track, bool aligned) {
  RenditionReport report;
  report.name = track.name;
  report.type = track.type == AVMEDIA_TYPE_VIDEO ? "video" : "audio";
  report.width = track.width;
  report.height = track.height;
  report.codec = track.codec;
  report.language = track.language;
  report.peak_bitrate = track.peak_bitrate();
  report.average_bitrate = track.average_bitrate();
  report.segments = int64_t(track.segments.size());
  report.duration_s = track.duration_s();
  report.keyframes_aligned = aligned;
  return report;
}

// A text rendition's cues are placed by the video's segments, so it is aligned by construction.
RenditionReport text_report(const TextMeasure& text) {
  RenditionReport report;
  report.name = text.name;
  report.type = "subtitles";
  report.codec = "webvtt";
  report.language = text.language;
  report.segments = text.segments;
  report.duration_s = text.duration_s;
  report.cues = int64_t(text.cues.size());
  report.keyframes_aligned = true;
  return report;
}

}  // namespace

bool keyframes_aligned(const std::vector<TrackMeasure>& video) {
  if (video.empty()) return false;
  return std::all_of(video.begin(), video.end(), [&](const TrackMeasure& track) {
    return track_keyframes_aligned(track, video.front());
  });
}

Result<std::unique_ptr<PackageWriter>> PackageWriter::create(const PackagePlan& plan,
                                                             const io::Roots& roots, int attempt) {
  TC_ASSIGN_OR_RETURN(std::unique_ptr<PackageDir> dir,
                      PackageDir::create(roots, plan.dir, attempt));
  return std::unique_ptr<PackageWriter>(new PackageWriter(plan, std::move(dir)));
}

TrackSetup PackageWriter::setup(std::string name) const {
  TrackSetup setup;
  setup.name = std::move(name);
  setup.segment_name = plan_.segment_name;
  setup.format = plan_.segment_format;
  setup.interval_us = seconds_to_us(plan_.segment_s);
  return setup;
}

Result<TrackSegmenter*> PackageWriter::add_video(size_t output, const std::string& name,
                                                 const AVStream& stream) {
  std::lock_guard lock(tracks_mutex_);
  TrackSetup video = setup(name);
  video.frame_rate = stream.avg_frame_rate;
  video.grid = &video_grid_;
  TC_ASSIGN_OR_RETURN(std::unique_ptr<TrackSegmenter> track,
                      TrackSegmenter::open(*dir_, video, stream));
  video_.push_back({output, std::move(track)});
  return video_.back().track.get();
}

Result<TrackSegmenter*> PackageWriter::add_audio(int input_stream, bool stereo_rendition,
                                                 const AVStream& stream) {
  std::lock_guard lock(tracks_mutex_);
  TrackSetup audio = setup(audio_rendition_name(input_stream, stereo_rendition));
  audio.language = language_of(stream);
  audio.title = title_of(stream);
  // The surround track is the one a source's default marks; its stereo rendition is an
  // alternative in the same group.
  audio.disposition =
      stereo_rendition ? stream.disposition & ~AV_DISPOSITION_DEFAULT : stream.disposition;
  audio.source_stream = input_stream;
  TC_ASSIGN_OR_RETURN(std::unique_ptr<TrackSegmenter> track,
                      TrackSegmenter::open(*dir_, audio, stream));
  audio_.push_back(std::move(track));
  return audio_.back().get();
}

Result<TextRendition*> PackageWriter::add_subtitles(int input_stream, const AVStream& stream) {
  std::lock_guard lock(tracks_mutex_);
  std::string name = "subs_" + std::to_string(input_stream);
  TC_RETURN_IF_ERROR(dir_->make_subdir(name).status());
  text_.push_back(std::make_unique<TextRendition>(name, language_of(stream), title_of(stream),
                                                  stream.disposition));
  return text_.back().get();
}

PackageMeasure PackageWriter::measure() const {
  PackageMeasure measure;
  measure.segment_name = plan_.segment_name;
  measure.segment_format = plan_.segment_format;
  std::vector<const Video*> in_order;
  for (const Video& video : video_) in_order.push_back(&video);
  std::sort(in_order.begin(), in_order.end(),
            [](const Video* a, const Video* b) { return a->output < b->output; });
  for (const Video* video : in_order) measure.video.push_back(video->track->measure());
  for (const auto& audio : audio_) measure.audio.push_back(audio->measure());
  for (const auto& text : text_) measure.text.push_back(text->measure());
  return measure;
}

Status PackageWriter::write_manifests(const PackageMeasure& measure,
                                      std::vector<std::string>& written) {
  if (writes_hls(plan_.kind)) {
    long target = hls_target_duration(measure);
    for (const auto* tracks : {&measure.video, &measure.audio})
      for (const TrackMeasure& track : *tracks)
        TC_RETURN_IF_ERROR(dir_->write_file(track.name + "/" + kHlsMediaPlaylist,
                                            hls_media_playlist(track, plan_.segment_name, target)));
    for (const TrackMeasure& video : measure.video)
      if (!iframe_segments(video).empty())
        TC_RETURN_IF_ERROR(dir_->write_file(video.name + "/" + kHlsIFramePlaylist,
                                            hls_iframe_playlist(video, plan_.segment_name)));
    TC_RETURN_IF_ERROR(dir_->write_file(kHlsMaster, hls_master(measure)));
    written.push_back(kHlsMaster);
  }
  if (writes_dash(plan_.kind)) {
    TC_RETURN_IF_ERROR(dir_->write_file(kDashManifest, dash_mpd(measure)));
    written.push_back(kDashManifest);
  }
  return Status::ok();
}

// HLS: a WebVTT segment per video segment (the cues overlapping it) and a media playlist of
// the video's segment durations; DASH: the whole track in one document.
Status PackageWriter::write_text_renditions(PackageMeasure& measure) {
  if (measure.text.empty() || measure.video.empty()) return Status::ok();
  std::vector<SegmentRange> ranges = segment_ranges(measure.video.front());
  int64_t period_start_us = presentation_start_us(measure);
  for (TextMeasure& text : measure.text) {
    text.duration_s = measure.video.front().duration_s();
    if (writes_hls(plan_.kind)) {
      for (size_t i = 0; i < ranges.size(); ++i)
        TC_RETURN_IF_ERROR(dir_->write_file(
            text.name + "/" + segment_file_name(plan_.segment_name, int(i) + 1) + ".vtt",
            webvtt_segment(cues_in(text.cues, ranges[i]),
                           segment_container(plan_.segment_format).media_zero_90khz)));
      TC_RETURN_IF_ERROR(dir_->write_file(
          text.name + "/" + kHlsMediaPlaylist,
          hls_subtitle_playlist(ranges, plan_.segment_name, hls_target_duration(measure))));
      text.segments = int64_t(ranges.size());
    }
    if (writes_dash(plan_.kind)) {
      // The document's times are the period's: the source's less where the period starts.
      std::vector<Cue> cues = text.cues;
      for (Cue& cue : cues) {
        cue.start_us -= period_start_us;
        cue.end_us -= period_start_us;
      }
      std::string document = webvtt_document(cues);
      TC_RETURN_IF_ERROR(dir_->write_file(text.name + "/" + kWebVttDocument, document));
      text.document_bytes = int64_t(document.size());
    }
  }
  return Status::ok();
}

Result<PackageReport> PackageWriter::finish() {
  PackageMeasure measure = this->measure();
  PackageReport report;
  report.kind = std::string(name_of(plan_.kind));
  report.dir = dir_->path();
  report.segment_s = plan_.segment_s;
  TC_RETURN_IF_ERROR(write_text_renditions(measure));
  TC_RETURN_IF_ERROR(write_manifests(measure, report.manifests));
  report.keyframes_aligned = keyframes_aligned(measure.video);
  for (const TrackMeasure& video : measure.video)
    report.renditions.push_back(
        rendition_report(video, track_keyframes_aligned(video, measure.video.front())));
  for (const TrackMeasure& audio : measure.audio)
    report.renditions.push_back(rendition_report(audio, true));
  for (const TextMeasure& text : measure.text) report.renditions.push_back(text_report(text));
  return report;
}

std::string describe_package_report(const PackageReport& package) {
  std::string text = "package: " + package.kind + " in " + package.dir + " (";
  for (size_t i = 0; i < package.manifests.size(); ++i)
    text += (i ? ", " : "") + package.manifests[i];
  text += "), keyframes " + std::string(package.keyframes_aligned ? "aligned" : "NOT aligned") +
          " across renditions\n";
  for (const RenditionReport& r : package.renditions) {
    char line[256];
    if (r.type == "subtitles") {
      std::snprintf(line, sizeof line, "  %s: %s webvtt, %lld cues, %lld segments\n",
                    r.name.c_str(), r.language.empty() ? "subtitles" : r.language.c_str(),
                    static_cast<long long>(r.cues), static_cast<long long>(r.segments));
      text += line;
      continue;
    }
    std::snprintf(
        line, sizeof line,
        "  %s: %s %s%s, %lld segments, %.2f s, peak %.0f kb/s, average %.0f kb/s\n", r.name.c_str(),
        r.type == "video" ? (std::to_string(r.width) + "x" + std::to_string(r.height)).c_str()
                          : (r.language.empty() ? "audio" : r.language.c_str()),
        r.codec.c_str(), r.type == "video" && !r.keyframes_aligned ? " (misaligned)" : "",
        static_cast<long long>(r.segments), r.duration_s, r.peak_bitrate / 1000.0,
        r.average_bitrate / 1000.0);
    text += line;
  }
  return text;
}

}  // namespace tc::package
