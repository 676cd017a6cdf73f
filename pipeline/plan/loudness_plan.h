// `--loudnorm`: the audio filters that bring a track to its loudness target.
#pragma once

#include <string>

#include "pipeline/spec/loudness.h"

namespace tc {

// "loudnorm=I=-23:LRA=7:TP=-2,aresample=48000": one pass (loudnorm's dynamic mode, a 3 s
// look-ahead: no second pass over the input); loudnorm works at 192 kHz, so the track goes back
// to the rate it is encoded at (`sample_rate`, 48 kHz when unknown). The encoder's sample format
// and channel layout follow (audio_format.h). Empty for kOff.
std::string loudnorm_filter(Loudnorm loudnorm, int sample_rate);

}  // namespace tc
