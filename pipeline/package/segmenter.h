// One rendition track of a package: as CMAF, an fMP4 init segment (ftyp + moov) and media
// segments (moof + mdat); or as MPEG-TS segments that stand alone (segment_container.h). Each
// segment starts at the first keyframe at or past a multiple of the segment duration from the
// track's first frame (segment_grid.h). One
// FFmpeg muxer per track writes every segment (mp4: frag_custom, one fragment per segment and
// one more at each keyframe inside it, flushed by us; mpegts: flushed the same way) through an
// AVIOContext of ours whose file we switch at each boundary; every file is created by the
// PackageDir. What was written is measured here.
#pragma once

#include <memory>
#include <string>
#include <vector>

extern "C" {
#include <libavformat/avformat.h>
}

#include "pipeline/core/av.h"
#include "pipeline/core/compat.h"
#include "pipeline/core/fd.h"
#include "pipeline/core/status.h"
#include "pipeline/package/keyframe_range.h"
#include "pipeline/package/package_dir.h"
#include "pipeline/package/segment_grid.h"
#include "pipeline/plan/segment_container.h"

namespace tc::package {

// A video keyframe as written: its pts (the track's time base, as a segment's start) and its
// bytes in its segment file (keyframe_range.h), for the I-frame playlists.
struct KeyframeMeasure {
  int64_t pts = 0;
  ByteRange range;
};

// A media segment as written: times in the track's time base.
struct SegmentMeasure {
  int64_t start = 0;
  int64_t duration = 0;
  int64_t bytes = 0;
  bool starts_with_keyframe = false;
  std::vector<KeyframeMeasure> keyframes;  // video: every keyframe in it, in order
};

// A track as written: what the manifests and the report say of it.
struct TrackMeasure {
  std::string name;  // the rendition's directory: "720p", "audio_1"
  SegmentFormat format = SegmentFormat::kFmp4;
  AVMediaType type = AVMEDIA_TYPE_VIDEO;
  AVRational time_base{1, 1};
  std::string codec;  // RFC 6381: "avc1.64001f", "mp4a.40.2"
  int width = 0;
  int height = 0;
  // Video: the highest rate its frames reach (a VFR screen recording's bursts), from the
  // shortest interval between them; the stream's rate until two frames are written.
  AVRational frame_rate{0, 1};
  std::string language;  // BCP 47, canonical (language_tag.h); "und" for an invalid tag
  std::string title;     // the source track's, as it came
  int disposition = 0;   // the source track's AV_DISPOSITION_* (default, forced, ...)
  // Audio: the input stream it comes from; a stereo rendition shares its surround track's (one
  // DASH AdaptationSet holds both).
  int source_stream = -1;
  // What a video rendition's pictures are: the manifests' HDR signalling and aspect ratios.
  AVColorPrimaries primaries = AVCOL_PRI_UNSPECIFIED;
  AVColorTransferCharacteristic transfer = AVCOL_TRC_UNSPECIFIED;
  AVColorSpace matrix = AVCOL_SPC_UNSPECIFIED;
  AVRational sample_aspect_ratio{0, 1};
  int channels = 0;
  int sample_rate = 0;
  int64_t init_bytes = 0;  // 0 without an init segment (ts)
  // Segment starts are the packets' times (the source's timeline); the media's times are these
  // plus media_shift (segment_container.h), the same instant in every track of a package.
  int64_t media_shift = 0;
  // The first content presented: the first packet's pts past an audio encoder's priming (AAC:
  // 1024 samples that a player drops).
  int64_t content_start = 0;
  std::vector<SegmentMeasure> segments;
  double seconds(int64_t t) const { return t * av_q2d(time_base); }
  double duration_s() const;
  // RFC 8216 4.3.4.2's peak segment bit rate: the highest of any run of consecutive
  // segments lasting 0.5 to 1.5 target durations (the longest segment, rounded), so that a
  // short last segment with a fragment's overhead does not count alone.
  int64_t peak_bitrate() const;
  int64_t average_bitrate() const;  // all segments' bits / their seconds
};

struct TrackSetup {
  std::string name;
  std::string segment_name;  // "seg_{n}"
  SegmentFormat format = SegmentFormat::kFmp4;
  int64_t interval_us = 0;  // segments start at multiples of this media time
  // Video: the package's grid, shared by its renditions (segment_grid.h); null for audio,
  // which has its own from its first content.
  SegmentGrid* grid = nullptr;
  std::string language;
  std::string title;
  int disposition = 0;
  int source_stream = -1;
  AVRational frame_rate{0, 1};
};

class TrackSegmenter {
 public:
  // Writes the init segment of `stream` (its codec parameters, opened encoder's extradata).
  static Result<std::unique_ptr<TrackSegmenter>> open(PackageDir& dir, const TrackSetup& setup,
                                                      const AVStream& stream);
  ~TrackSegmenter();
  // A packet in `time_base`; starts a new segment file at a boundary. A segment's packets are
  // held until the next segment's first one comes (a few MB at most: one fragment is flushed
  // per segment anyway), so that each sample's duration is the real interval to the next one
  // and each segment is decoded from its own start (decode_times below): the muxer places a
  // fragment by its samples' durations, and a VFR source's still gaps would otherwise put a
  // segment's decode time before the gap.
  Status write(AVPacket* packet, AVRational time_base);
  // Flushes the last fragment; the track is complete.
  Status finish();
  const TrackMeasure& measure() const { return measure_; }

 private:
  explicit TrackSegmenter(PackageDir& dir) : dir_(dir) {}
  static int write_bytes(void* opaque, av::AvioWriteBuffer data, int size);
  Status start_segment(const AVPacket& packet);
  Status end_segment(bool last);
  void retime_audio(AVPacket& packet);
  void decode_times();
  Status flush_pending(bool last);
  Status mux(AVPacket& packet, bool starts_segment);
  // An audio encoder's priming (AAC: 1024 samples that a player drops), in the track's time
  // base; 0 for video.
  int64_t priming() const;
  Status begin_keyframe(const AVPacket& packet, bool starts_segment);
  Status end_keyframe();
  void measure_keyframes();
  AVRational highest_frame_rate() const;

  PackageDir& dir_;
  TrackSetup setup_;
  const SegmentContainer* container_ = nullptr;
  int dir_fd_ = -1;  // the rendition's directory (the PackageDir's)
  ScopedFd file_;    // the file being written: init, then each segment
  int write_error_ = 0;
  int64_t file_bytes_ = 0;
  // Video: the open segment's bytes as written, and where each keyframe's writing began and
  // (TS) ended in them; measured into the segment's keyframes when it ends.
  std::string written_;
  struct KeyframeWrite {
    int64_t pts, begin, end;
  };
  std::vector<KeyframeWrite> keyframe_writes_;
  AVIOContext* io_ = nullptr;
  av::OutputFormatPtr format_;
  AVStream* stream_ = nullptr;
  int64_t segment_end_ = 0;  // the latest pts + duration in the open segment
  bool segment_open_ = false;
  std::vector<av::PacketPtr> pending_;  // the segment being gathered, in decode order
  av::PacketPtr tail_;  // the last packet of the segment before, until pending_'s decode times
  bool tail_starts_segment_ = false;
  int64_t pending_boundary_us_ = 0;        // where the segment after it may start
  std::unique_ptr<SegmentGrid> own_grid_;  // audio's (setup_.grid null)
  SegmentGrid* grid_ = nullptr;            // anchored at the first packet written
  bool anchored_ = false;
  int64_t reorder_delay_ = AV_NOPTS_VALUE;   // the first packet's pts - dts (B-frames' delay)
  int64_t next_audio_pts_ = AV_NOPTS_VALUE;  // where the previous audio packet ends
  int64_t shortest_interval_ = 0;            // video: between two frames' dts, 0 until known
  TrackMeasure measure_;
};

}  // namespace tc::package
