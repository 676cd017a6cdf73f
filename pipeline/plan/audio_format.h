// The format an encoded audio track leaves its graph in: a channel layout its codec signals
// natively, a sample rate it takes, and its bitrate.
#pragma once

#include <string>

#include "pipeline/plan/plan.h"

namespace tc {

// The default bitrate of an encoded track per channel: stereo's 128 kb/s over two channels, so
// that 5.1 gets 384 kb/s (at 128 kb/s for six channels each would get a third of stereo's).
inline constexpr int64_t kAudioBitratePerChannel = 64000;

// The codec an output encodes audio in: Opus for WebM (which takes Opus or Vorbis), else AAC.
AVCodecID audio_codec_for(const std::string& container);

// Fills `audio`'s codec, encoder, layout, channels, rate, sample format and bitrate for `track`
// from the output's options (audio_channels, audio_rate, audio_bitrate), and appends to
// `audio.filter` the aformat that gives its frames that format (libavfilter inserts the
// resampler and remixer). Errors: an Opus output asked for a rate Opus has not (kUnsupported).
Status plan_audio_format(const OutputSpec& spec, const std::string& container,
                         const AudioInfo& track, AudioPlan& audio);

}  // namespace tc
