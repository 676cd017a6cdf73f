#include "pipeline/plan/audio_format.h"

#include <algorithm>
#include <array>

extern "C" {
#include <libavutil/samplefmt.h>
}

#include "pipeline/plan/loudness_plan.h"
#include "pipeline/spec/audio_spec.h"

namespace tc {
namespace {

struct NativeLayout {
  const char* name;  // FFmpeg's
  int channels;
};

// Index: the track's channels - 1.
constexpr std::array<NativeLayout, 8> kAacLayouts{{{"mono", 1},
                                                   {"stereo", 2},
                                                   {"3.0", 3},
                                                   {"4.0", 4},
                                                   {"5.0", 5},
                                                   {"5.1", 6},
                                                   {"5.1", 6},
                                                   {"7.1", 8}}};
constexpr std::array<NativeLayout, 8> kOpusLayouts{{{"mono", 1},
                                                    {"stereo", 2},
                                                    {"3.0", 3},
                                                    {"quad", 4},
                                                    {"5.0", 5},
                                                    {"5.1", 6},
                                                    {"6.1", 7},
                                                    {"7.1", 8}}};
constexpr std::array kOpusRates{8000, 12000, 16000, 24000, 48000};

// The layout a track of `channels` channels is encoded in. AAC: the layouts
// FFmpeg's encoder writes as channelConfiguration 1-7 (mono, stereo, 3.0, 4.0, 5.0, 5.1 - FL FR
// FC LFE BL BR -, 7.1); any other layout would be written with a program config element
// (channelConfiguration 0), which browsers' MSE refuses, so 5.1(side) becomes 5.1 (the side
// channels moved to the back ones) and 6.1 is downmixed to 5.1. Opus: its mapping family 1
// (Vorbis order). More than 8 channels: 7.1.
NativeLayout layout_for(AVCodecID codec, int channels) {
  const auto& layouts = codec == AV_CODEC_ID_OPUS ? kOpusLayouts : kAacLayouts;
  return layouts[size_t(std::clamp(channels, 1, int(layouts.size())) - 1)];
}

bool opus_takes(int hz) {
  return std::find(kOpusRates.begin(), kOpusRates.end(), hz) != kOpusRates.end();
}

// The asked rate, else the source's where the codec takes it, else 48 kHz.
Result<int> sample_rate_for(AVCodecID codec, int asked, int source) {
  bool opus = codec == AV_CODEC_ID_OPUS;
  if (asked > 0 && opus && !opus_takes(asked))
    return Status(Code::kUnsupported, "--audio-rate " + std::to_string(asked) +
                                          ": Opus (the audio WebM takes) has 8000, 12000, 16000, "
                                          "24000 and 48000 Hz");
  if (asked > 0) return asked;
  if (source > 0 && (opus ? opus_takes(source) : is_audio_rate(source))) return source;
  return 48000;
}

}  // namespace

AVCodecID audio_codec_for(const std::string& container) {
  return container == "webm" ? AV_CODEC_ID_OPUS : AV_CODEC_ID_AAC;
}

Status plan_audio_format(const OutputSpec& spec, const std::string& container,
                         const AudioInfo& track, AudioPlan& audio) {
  audio.codec = audio_codec_for(container);
  bool opus = audio.codec == AV_CODEC_ID_OPUS;
  audio.encoder = opus ? "libopus" : "aac";
  audio.sample_format = opus ? AV_SAMPLE_FMT_FLT : AV_SAMPLE_FMT_FLTP;
  int channels = spec.audio_channels > 0 ? spec.audio_channels
                 : track.channels > 0    ? track.channels
                                         : 2;
  NativeLayout layout = layout_for(audio.codec, channels);
  audio.channel_layout = layout.name;
  audio.channels = layout.channels;
  TC_ASSIGN_OR_RETURN(audio.sample_rate,
                      sample_rate_for(audio.codec, spec.audio_rate, track.sample_rate));
  audio.bit_rate =
      spec.audio_bitrate > 0 ? spec.audio_bitrate : kAudioBitratePerChannel * audio.channels;
  std::string format = std::string("aformat=sample_fmts=") +
                       av_get_sample_fmt_name(audio.sample_format) +
                       ":sample_rates=" + std::to_string(audio.sample_rate) +
                       ":channel_layouts=" + audio.channel_layout;
  std::string loudnorm = loudnorm_filter(spec.loudnorm, audio.sample_rate);
  audio.filter = loudnorm.empty() ? format : loudnorm + "," + format;
  return Status::ok();
}

}  // namespace tc
