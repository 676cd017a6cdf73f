#include <cmath>

extern "C" {
#include <libavutil/display.h>
#include <libavutil/pixdesc.h>
}

#include "pipeline/core/av.h"
#include "pipeline/core/compat.h"
#include "pipeline/core/text_field.h"
#include "pipeline/io/media_input.h"
#include "pipeline/probe/alternative_transfer.h"
#include "pipeline/probe/media_info.h"

namespace tc {
namespace {

Status input_error(const std::string& path, const std::string& problem) {
  return {Code::kInput, path + ": " + problem};
}

double rotation_of(const AVStream* stream) {
  const uint8_t* matrix = av::stream_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX);
  if (!matrix) return 0;
  double degrees = av_display_rotation_get(reinterpret_cast<const int32_t*>(matrix));
  return std::isnan(degrees) ? 0 : degrees;
}

ChromaFormat chroma_of(const AVPixFmtDescriptor* desc) {
  if (!desc || desc->nb_components < 3 || (desc->flags & AV_PIX_FMT_FLAG_RGB))
    return ChromaFormat::kOther;
  if (desc->log2_chroma_w == 1 && desc->log2_chroma_h == 1) return ChromaFormat::k420;
  if (desc->log2_chroma_w == 1 && desc->log2_chroma_h == 0) return ChromaFormat::k422;
  if (desc->log2_chroma_w == 0 && desc->log2_chroma_h == 0) return ChromaFormat::k444;
  return ChromaFormat::kOther;
}

void read_color(const AVStream* stream, VideoInfo& video) {
  const AVCodecParameters* codecpar = stream->codecpar;
  video.color = {codecpar->color_primaries, codecpar->color_trc, codecpar->color_space,
                 codecpar->color_range};
  video.chroma_location = codecpar->chroma_location;
  video.field_order = codecpar->field_order;
  const uint8_t* mastering = av::stream_side_data(stream, AV_PKT_DATA_MASTERING_DISPLAY_METADATA);
  const uint8_t* light = av::stream_side_data(stream, AV_PKT_DATA_CONTENT_LIGHT_LEVEL);
  video.mastering_display = mastering != nullptr;
  video.content_light = light != nullptr;
  if (mastering)
    video.mastering_display_values =
        *reinterpret_cast<const AVMasteringDisplayMetadata*>(mastering);
  if (light) video.content_light_values = *reinterpret_cast<const AVContentLightMetadata*>(light);
}

VideoInfo video_info(const AVFormatContext* format, AVStream* stream) {
  const AVCodecParameters* codecpar = stream->codecpar;
  VideoInfo video;
  video.stream_index = stream->index;
  video.codec = codecpar->codec_id;
  video.codec_name = avcodec_get_name(codecpar->codec_id);
  if (const char* profile = avcodec_profile_name(codecpar->codec_id, codecpar->profile))
    video.profile = profile;
  video.codec_profile = codecpar->profile;
  video.width = codecpar->width;
  video.height = codecpar->height;
  video.frame_rate = av_guess_frame_rate(const_cast<AVFormatContext*>(format), stream, nullptr);
  video.time_base = stream->time_base;
  video.pix_fmt = static_cast<AVPixelFormat>(codecpar->format);
  const AVPixFmtDescriptor* desc = av_pix_fmt_desc_get(video.pix_fmt);
  if (desc) video.bit_depth = desc->comp[0].depth;
  video.chroma = chroma_of(desc);
  read_color(stream, video);
  video.rotation_deg = rotation_of(stream);
  video.bit_rate = codecpar->bit_rate;
  video.frame_count = stream->nb_frames;
  return video;
}

std::string tag(const AVStream* stream, const char* key) {
  const AVDictionaryEntry* entry = av_dict_get(stream->metadata, key, nullptr, 0);
  return entry ? entry->value : "";
}

// A track's language and title travel with the job: its plan, its report, its record and webhook
// bodies (the output file keeps the input's own metadata). Media may carry megabytes there (a
// 12 MB title made a 24 MB job record), so each is cut to its bound at a character boundary.
TrackTags tags_of(const AVStream* stream) {
  return {cut_text(tag(stream, "language"), kMaxTextNameBytes),
          cut_text(tag(stream, "title"), kMaxTitleBytes), stream->disposition};
}

std::string layout_name(const AVChannelLayout& layout) {
  char name[128] = {};
  if (layout.nb_channels <= 0 || av_channel_layout_describe(&layout, name, sizeof name) < 0)
    return "";
  return name;
}

AudioInfo audio_info(const AVStream* stream) {
  AudioInfo audio;
  audio.stream_index = stream->index;
  audio.codec = stream->codecpar->codec_id;
  audio.codec_name = avcodec_get_name(stream->codecpar->codec_id);
  audio.sample_rate = stream->codecpar->sample_rate;
  audio.channels = stream->codecpar->ch_layout.nb_channels;
  audio.channel_layout = layout_name(stream->codecpar->ch_layout);
  audio.tags = tags_of(stream);
  return audio;
}

SubtitleInfo subtitle_info(const AVStream* stream) {
  SubtitleInfo subtitle;
  subtitle.stream_index = stream->index;
  subtitle.codec = stream->codecpar->codec_id;
  subtitle.codec_name = avcodec_get_name(subtitle.codec);
  const AVCodecDescriptor* descriptor = avcodec_descriptor_get(subtitle.codec);
  subtitle.text = descriptor && (descriptor->props & AV_CODEC_PROP_TEXT_SUB);
  subtitle.tags = tags_of(stream);
  return subtitle;
}

// Every stream but the one video stream the job transcodes.
void list_streams(const AVFormatContext* format, int video_index, MediaInfo& media) {
  for (unsigned i = 0; i < format->nb_streams; ++i) {
    const AVStream* stream = format->streams[i];
    AVMediaType type = stream->codecpar->codec_type;
    if (type == AVMEDIA_TYPE_AUDIO) {
      media.audio.push_back(audio_info(stream));
    } else if (type == AVMEDIA_TYPE_SUBTITLE) {
      media.subtitles.push_back(subtitle_info(stream));
    } else if (int(i) != video_index) {
      const char* kind = av_get_media_type_string(type);
      media.other_streams.push_back(
          {int(i), kind ? kind : "unknown", avcodec_get_name(stream->codecpar->codec_id)});
    }
  }
}

}  // namespace

const AudioInfo* MediaInfo::first_audio() const {
  for (const AudioInfo& track : audio)
    if (track.tags.disposition & AV_DISPOSITION_DEFAULT) return &track;
  return audio.empty() ? nullptr : &audio.front();
}

std::string_view name_of(ChromaFormat chroma) {
  switch (chroma) {
    case ChromaFormat::k420:
      return "4:2:0";
    case ChromaFormat::k422:
      return "4:2:2";
    case ChromaFormat::k444:
      return "4:4:4";
    case ChromaFormat::kOther:
      break;
  }
  return "other";
}

std::string_view field_order_name(AVFieldOrder order) {
  switch (order) {
    case AV_FIELD_PROGRESSIVE:
      return "progressive";
    case AV_FIELD_TT:
      return "tt";
    case AV_FIELD_BB:
      return "bb";
    case AV_FIELD_TB:
      return "tb";
    case AV_FIELD_BT:
      return "bt";
    case AV_FIELD_UNKNOWN:
      break;
  }
  return "unknown";
}

Result<MediaInfo> probe(const std::string& path, const io::Access& access) {
  TC_ASSIGN_OR_RETURN(io::MediaInput input, io::open_media_input(path, access));
  const av::InputFormatPtr& format = input.format;

  if (format->nb_streams > kMaxSourceStreams)
    return input_error(path, std::to_string(format->nb_streams) +
                                 " streams, more than a job reads (" +
                                 std::to_string(kMaxSourceStreams) + ")");
  MediaInfo media;
  media.path = path;
  media.format_name = format->iformat->name;
  if (format->duration > 0) media.duration_s = format->duration / double(AV_TIME_BASE);
  int video_index = av_find_best_stream(format.get(), AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
  if (video_index >= 0) {
    media.video = video_info(format.get(), format->streams[video_index]);
    // HLG by an alternative transfer SEI over a BT.2020 VUI (alternative_transfer.h).
    if (auto transfer = preferred_transfer(*format, *format->streams[video_index]))
      media.video->color.transfer = *transfer;
  }
  list_streams(format.get(), video_index, media);
  if (!media.video) return input_error(path, "has no video stream");
  if (media.video->width <= 0 || media.video->height <= 0)
    return input_error(path, "video stream has no size (corrupt or truncated header)");
  return media;
}

}  // namespace tc
