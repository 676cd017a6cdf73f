#include "pipeline/plan/stereo_rendition.h"

#include "pipeline/plan/audio_format.h"

namespace tc {
namespace {

const AudioInfo* track_of(const MediaInfo& media, int stream) {
  for (const AudioInfo& track : media.audio)
    if (track.stream_index == stream) return &track;
  return nullptr;
}

}  // namespace

Status plan_stereo_renditions(const JobSpec& spec, const MediaInfo& media, Plan& plan) {
  if (!spec.package.on() || !spec.package.stereo_audio || plan.outputs.empty()) return Status::ok();
  OutputSpec stereo_spec = spec.outputs[0];
  stereo_spec.audio_channels = 2;
  stereo_spec.audio_bitrate = 0;  // a bitrate asked for is the surround track's
  std::vector<AudioPlan>& audio = plan.outputs[0].audio;
  for (size_t i = 0; i < audio.size(); ++i) {
    if (audio[i].mode != AudioPlan::Mode::kEncode || audio[i].channels <= 2) continue;
    const AudioInfo* track = track_of(media, audio[i].input_stream);
    if (!track)
      return {Code::kInternal, "no audio stream " + std::to_string(audio[i].input_stream)};
    AudioPlan stereo;
    stereo.mode = AudioPlan::Mode::kEncode;
    stereo.input_stream = audio[i].input_stream;
    stereo.stereo_rendition = true;
    TC_RETURN_IF_ERROR(plan_audio_format(stereo_spec, "mp4", *track, stereo));
    audio.insert(audio.begin() + long(++i), std::move(stereo));
  }
  return Status::ok();
}

std::string audio_rendition_name(int input_stream, bool stereo_rendition) {
  return "audio_" + std::to_string(input_stream) + (stereo_rendition ? "_stereo" : "");
}

}  // namespace tc
