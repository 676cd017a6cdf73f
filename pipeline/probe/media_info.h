// What an input holds, as far as planning needs it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

extern "C" {
#include <libavcodec/codec_id.h>
#include <libavcodec/codec_par.h>
#include <libavutil/mastering_display_metadata.h>
#include <libavutil/pixfmt.h>
#include <libavutil/rational.h>
}

#include "pipeline/core/status.h"
#include "pipeline/io/access.h"

namespace tc {

// How the samples are to be read as colour: what an output must be tagged with to look the same.
struct ColorTags {
  AVColorPrimaries primaries = AVCOL_PRI_UNSPECIFIED;
  AVColorTransferCharacteristic transfer = AVCOL_TRC_UNSPECIFIED;
  AVColorSpace matrix = AVCOL_SPC_UNSPECIFIED;
  AVColorRange range = AVCOL_RANGE_UNSPECIFIED;
  bool operator==(const ColorTags&) const = default;
  // PQ (SMPTE ST 2084, HDR10) or HLG (ARIB STD-B67).
  bool hdr() const { return transfer == AVCOL_TRC_SMPTE2084 || transfer == AVCOL_TRC_ARIB_STD_B67; }
  // HDR, or BT.2020 primaries or matrix: what an 8-bit SDR output must not be tagged with.
  bool wide() const {
    return hdr() || primaries == AVCOL_PRI_BT2020 || matrix == AVCOL_SPC_BT2020_NCL ||
           matrix == AVCOL_SPC_BT2020_CL;
  }
};

// Chroma subsampling of the source's samples.
enum class ChromaFormat { k420, k422, k444, kOther };

struct VideoInfo {
  int stream_index = -1;
  AVCodecID codec = AV_CODEC_ID_NONE;
  std::string codec_name;   // "h264"
  std::string profile;      // "High", "Main 10"; empty when unknown
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
  ColorTags color;
  AVChromaLocation chroma_location = AVCHROMA_LOC_UNSPECIFIED;
  ChromaFormat chroma = ChromaFormat::k420;
  AVFieldOrder field_order = AV_FIELD_UNKNOWN;
  // HDR10 static metadata the container declares (the stream's side data). HEVC and AV1 also
  // carry it in the bitstream (SEI / OBU), where the decoder finds it on each frame.
  bool mastering_display = false;
  bool content_light = false;
  // Their values, where declared: the plan's ffmpeg command hands them to libx265.
  std::optional<AVMasteringDisplayMetadata> mastering_display_values;
  std::optional<AVContentLightMetadata> content_light_values;
  // Fields coded apart (top or bottom first): what --deinterlace auto acts on.
  bool interlaced() const {
    return field_order != AV_FIELD_UNKNOWN && field_order != AV_FIELD_PROGRESSIVE;
  }
};

// What a player shows of a track, kept through the transcode.
struct TrackTags {
  std::string language;  // ISO 639-2 ("eng"); empty when untagged
  std::string title;
  int disposition = 0;  // AV_DISPOSITION_* flags
  bool operator==(const TrackTags&) const = default;
};
std::string_view name_of(ChromaFormat chroma);  // "4:2:0"
// "tt" (top first), "bb", "tb", "bt", "progressive", "unknown": ffprobe's names.
std::string_view field_order_name(AVFieldOrder order);

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

// The most streams a source may have. Every stream becomes a line of the job's report (kept or
// dropped, with its title), stored and sent to watchers for the job's retention: a file of
// thousands of empty tracks would make a record of megabytes. Real sources (a Blu-ray rip with
// every language and commentary) have a few dozen.
inline constexpr unsigned kMaxSourceStreams = 256;

// Opens `path` (confined to `access`, as the job itself will) and reads its streams. Errors name
// the file and say what is wrong with it (outside the roots, missing, a directory, empty, not
// media, truncated, no video stream, more than kMaxSourceStreams streams).
Result<MediaInfo> probe(const std::string& path, const io::Access& access);

}  // namespace tc
