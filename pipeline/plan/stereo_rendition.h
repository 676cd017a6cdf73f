// A package's stereo rendition beside each surround audio track. Players that cannot play
// surround - most browsers through MSE on stereo devices - need a stereo track to choose, and
// Apple's HLS authoring specification asks for stereo AAC alongside any multichannel audio. It
// goes into the same audio group (HLS CHANNELS="2" beside "6"; in DASH a Representation of the
// track's AdaptationSet with its own AudioChannelConfiguration), so that a player picks by the
// channels it can render.
#pragma once

#include "pipeline/plan/plan.h"
#include "pipeline/probe/media_info.h"

namespace tc {

// A package's audio renditions are its first output's (package_spec.h). After each of them
// encoded with more than two channels, adds an AudioPlan of the same input stream downmixed to
// stereo at stereo's default bitrate (audio_format.h), with the output's loudnorm and sample
// rate; marked stereo_rendition. Nothing without a package or with spec.package.stereo_audio
// off. Runs before the audio graphs are planned.
Status plan_stereo_renditions(const JobSpec& spec, const MediaInfo& media, Plan& plan);
// An audio rendition's directory in the package: "audio_1", "audio_1_stereo".
std::string audio_rendition_name(int input_stream, bool stereo_rendition);

}  // namespace tc
