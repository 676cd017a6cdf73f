// What an input holds, as far as planning needs it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

extern "C" {
#include <libavcodec/codec_id.h>
#include <libavutil/pixfmt.h>
#include <libavutil/rational.h>
}

#include "pipeline/core/status.h"
#include "pipeline/io/access.h"

namespace tc {

struct VideoInfo {
  int stream_index = -1;
  AVCodecID codec = AV_CODEC_ID_NONE;
  std::string codec_name;  // "h264"
  std::string profile;     // "High", "Main 10"; empty when unknown
  int codec_profile = -99;  // AVCodecParameters.profile (the bitstream's number); -99 unknown
  int width = 0;
  int height = 0;
  AVRational frame_rate{0, 1};
  AVRational time_base{0, 1};
  AVPixelFormat pix_fmt = AV_PIX_FMT_NONE;
  int bit_depth = 8;
  double rotation_deg = 0;  // from the display matrix, counter-clockwise
  int64_t bit_rate = 0;
  int64_t frame_count = 0;  // as the container declares it; 0 when unknown
};

// What a player shows of a track, kept through the transcode.
struct TrackTags {
  std::string language;  // ISO 639-2 ("eng"); empty when untagged
  std::string title;
  int disposition = 0;  // AV_DISPOSITION_* flags
  bool operator==(const TrackTags&) const = default;
};

struct AudioInfo {
  int stream_index = -1;
  AVCodecID codec = AV_CODEC_ID_NONE;
  std::string codec_name;
  int sample_rate = 0;
  int channels = 0;
  std::string channel_layout;  // "stereo", "5.1(side)"
  TrackTags tags;
};

struct SubtitleInfo {
  int stream_index = -1;
  AVCodecID codec = AV_CODEC_ID_NONE;
  std::string codec_name;  // "subrip", "ass", "hdmv_pgs_subtitle"
  bool text = false;       // text (SRT, ASS, WebVTT, mov_text), else bitmaps (PGS, DVB)
  TrackTags tags;
};

// A stream the job does not carry (a second video, data, an attachment): listed so the report
// can say it was dropped.
struct OtherStreamInfo {
  int stream_index = -1;
  std::string kind;  // "video", "data", "attachment"
  std::string codec_name;
};

struct MediaInfo {
  std::string path;
  std::string format_name;  // demuxer name, "mov,mp4,m4a,3gp,3g2,mj2"
  double duration_s = 0;
  std::optional<VideoInfo> video;
  std::vector<AudioInfo> audio;  // every audio track, in stream order
  std::vector<SubtitleInfo> subtitles;
  std::vector<OtherStreamInfo> other_streams;
  // The track `--audio-tracks first` keeps: the first marked default, else the first; null
  // when there is no audio.
  const AudioInfo* first_audio() const;
};

// Opens `path` (confined to `access`, as the job itself will) and reads its streams. Errors name
// the file and say what is wrong with it (outside the roots, missing, a directory, empty, not
// media, truncated, no video stream).
Result<MediaInfo> probe(const std::string& path, const io::Access& access);

}  // namespace tc
