#include "pipeline/spec/audio_spec.h"

#include <algorithm>
#include <array>

namespace tc {
namespace {

constexpr std::array kAudioRates{8000,  11025, 12000, 16000, 22050, 24000,
                                 32000, 44100, 48000, 64000, 88200, 96000};

Status invalid(std::string field, const std::string& problem) {
  return Status::of_field(Code::kInvalidArgument, std::move(field), problem);
}

}  // namespace

bool is_audio_rate(int hz) {
  return std::find(kAudioRates.begin(), kAudioRates.end(), hz) != kAudioRates.end();
}

Status validate_audio_options(const OutputSpec& output, const std::string& field) {
  if (output.audio_bitrate < 0)
    return invalid(field + ".audio_bitrate", "negative (0 chooses from the channels)");
  if (output.audio_channels < 0 || output.audio_channels > kMaxAudioChannels)
    return invalid(field + ".audio_channels",
                   std::to_string(output.audio_channels) + " is outside 0.." +
                       std::to_string(kMaxAudioChannels) + " (0 keeps the source's)");
  if (output.audio_rate != 0 && !is_audio_rate(output.audio_rate))
    return invalid(field + ".audio_rate",
                   std::to_string(output.audio_rate) +
                       " Hz is not an AAC sample rate (8000, 11025, 12000, 16000, 22050, 24000, "
                       "32000, 44100, 48000, 64000, 88200, 96000)");
  if (output.audio == AudioMode::kCopy && (output.audio_channels > 0 || output.audio_rate > 0))
    return invalid(field + (output.audio_channels > 0 ? ".audio_channels" : ".audio_rate"),
                   "a copied track keeps its format: not with --audio copy");
  return Status::ok();
}

}  // namespace tc
