#include "pipeline/plan/segment_container.h"

extern "C" {
#include <libavutil/opt.h>
}

#include "pipeline/spec/package_spec.h"

namespace tc::package {
namespace {

// One fragment per segment, flushed by us (frag_custom); the moov is written up front and
// holds no samples (empty_moov), so the init segment is complete before the first packet.
// frag_discont: a track's decode time (tfdt) is its first packet's dts, not 0, so the tracks of
// a package, each in its own muxer, share the source's timeline instead of each starting at its
// own first packet (ISO/IEC 14496-12 8.8.12; RFC 8216 6.2.4: matching content has matching
// timestamps across renditions). No edit list (use_editlist 0): the composition times are the
// media's. Not the muxer's cmaf mode: its negative composition offsets (trun version 1) are read
// by FFmpeg's demuxer shifted by the largest of them (the B-frames' delay, 80 ms at 25 fps);
// non-negative offsets (version 0) read the same everywhere.
constexpr const char* kMovFlags =
    "+frag_custom+empty_moov+default_base_moof+skip_trailer+frag_discont";
// The ffmpeg CLI's default -muxdelay: the mpegts muxer adds twice this to every timestamp (the
// 1.4 s start of the CLI's TS files) and sends the PCR this much ahead, so the priming of AAC
// and the negative decode times of B-frames stay positive. The same in every rendition: their
// timestamps stay aligned.
constexpr int kTsMaxDelayUs = 700'000;
// PAT/PMT once per segment, from begin_segment (as FFmpeg's hls muxer does), not every 0.1 s.
constexpr const char* kTsTablePeriod = "1073741823";

constexpr int64_t kMediaZero90khz = 2 * kTsMaxDelayUs * 9 / 100;
constexpr SegmentContainer kFmp4{SegmentFormat::kFmp4, "mp4", "init.mp4", ".m4s", kMediaZero90khz};
constexpr SegmentContainer kTs{SegmentFormat::kTs, "mpegts", "", ".ts", kMediaZero90khz};

}  // namespace

const SegmentContainer& segment_container(SegmentFormat format) {
  return format == SegmentFormat::kTs ? kTs : kFmp4;
}

std::string segment_file(const SegmentContainer& container, const std::string& name_template,
                         int number) {
  return segment_file_name(name_template, number) + container.extension;
}

int64_t media_shift(const SegmentContainer& container, AVRational time_base) {
  if (container.format != SegmentFormat::kFmp4) return 0;
  return av_rescale_q(container.media_zero_90khz, AVRational{1, 90000}, time_base);
}

void prepare_muxer(const SegmentContainer& container, AVFormatContext& muxer,
                   AVDictionary** options) {
  // Each rendition has its own muxer: shifting one's negative start (B-frames, AAC priming)
  // would move it against the others.
  muxer.avoid_negative_ts = AVFMT_AVOID_NEG_TS_DISABLED;
  if (container.format == SegmentFormat::kFmp4) {
    av_dict_set(options, "movflags", kMovFlags, 0);
    av_dict_set(options, "use_editlist", "0", 0);
    return;
  }
  muxer.max_delay = kTsMaxDelayUs;
  av_dict_set(options, "pat_period", kTsTablePeriod, 0);
  av_dict_set(options, "sdt_period", kTsTablePeriod, 0);
}

int begin_segment(const SegmentContainer& container, AVFormatContext& muxer) {
  if (container.format != SegmentFormat::kTs) return 0;
  return av_opt_set(muxer.priv_data, "mpegts_flags", "+resend_headers", 0);
}

}  // namespace tc::package
