#include "pipeline/package/segment_container.h"

extern "C" {
#include <libavutil/opt.h>
}

#include "pipeline/spec/package_spec.h"

namespace tc::package {
namespace {

// One fragment per segment, flushed by us (frag_custom); the moov is written up front and
// holds no samples (empty_moov), so the init segment is complete before the first packet.
constexpr const char* kMovFlags = "+frag_custom+empty_moov+default_base_moof+cmaf+skip_trailer";
// The ffmpeg CLI's default -muxdelay: the mpegts muxer adds twice this to every timestamp (the
// 1.4 s start of the CLI's TS files) and sends the PCR this much ahead, so the priming of AAC
// and the negative decode times of B-frames stay positive. The same in every rendition: their
// timestamps stay aligned.
constexpr int kTsMaxDelayUs = 700'000;
// PAT/PMT once per segment, from begin_segment (as FFmpeg's hls muxer does), not every 0.1 s.
constexpr const char* kTsTablePeriod = "1073741823";

constexpr SegmentContainer kFmp4{SegmentFormat::kFmp4, "mp4", "init.mp4", ".m4s"};
constexpr SegmentContainer kTs{SegmentFormat::kTs, "mpegts", "", ".ts",
                               2 * kTsMaxDelayUs * 9 / 100};

}  // namespace

const SegmentContainer& segment_container(SegmentFormat format) {
  return format == SegmentFormat::kTs ? kTs : kFmp4;
}

std::string segment_file(const SegmentContainer& container, const std::string& name_template,
                         int number) {
  return segment_file_name(name_template, number) + container.extension;
}

void prepare_muxer(const SegmentContainer& container, AVFormatContext& muxer,
                   AVDictionary** options) {
  if (container.format == SegmentFormat::kFmp4) {
    av_dict_set(options, "movflags", kMovFlags, 0);
    return;
  }
  muxer.max_delay = kTsMaxDelayUs;
  // Each rendition has its own muxer: shifting one's negative start (B-frames, AAC priming)
  // would move it against the others.
  muxer.avoid_negative_ts = AVFMT_AVOID_NEG_TS_DISABLED;
  av_dict_set(options, "pat_period", kTsTablePeriod, 0);
  av_dict_set(options, "sdt_period", kTsTablePeriod, 0);
}

int begin_segment(const SegmentContainer& container, AVFormatContext& muxer) {
  if (container.format != SegmentFormat::kTs) return 0;
  return av_opt_set(muxer.priv_data, "mpegts_flags", "+resend_headers", 0);
}

}  // namespace tc::package
