// An output's encoded-audio options: `--audio-bitrate`, `--audio-channels` (a downmix) and
// `--audio-rate` (JSON and OutputConfig: audio_bitrate, audio_channels, audio_rate).
#pragma once

#include <string>

#include "pipeline/core/status.h"
#include "pipeline/spec/job_spec.h"

namespace tc {

// AAC's channel configurations without a program config element end at 8 channels (7.1).
inline constexpr int kMaxAudioChannels = 8;

// The sample rates an output may ask for: those of AAC's sampling-frequency index that FFmpeg's
// encoder takes (Opus takes 8, 12, 16, 24 and 48 kHz of them).
bool is_audio_rate(int hz);

// audio_bitrate not negative (0 = from the channels), audio_channels 0..kMaxAudioChannels (0 =
// the source's), audio_rate 0 or an is_audio_rate() rate; kInvalidArgument naming the field
// below `field` ("outputs[0].audio_rate").
Status validate_audio_options(const OutputSpec& output, const std::string& field);

}  // namespace tc
