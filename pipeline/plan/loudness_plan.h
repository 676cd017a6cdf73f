// `--loudnorm`: the audio filters that bring a track to its loudness target.
#pragma once

#include <string>

#include "pipeline/spec/loudness.h"

namespace tc {

// "loudnorm=I=-23:LRA=7:TP=-2,aresample=48000,aformat=sample_fmts=fltp": one pass (loudnorm's
// dynamic mode, a 3 s look-ahead: no second pass over the input); loudnorm works at 192 kHz, so
// the track goes back to its own rate (`sample_rate`, 48 kHz when unknown) and to AAC's sample
// format. Empty for kOff.
std::string loudnorm_filter(Loudnorm loudnorm, int sample_rate);

}  // namespace tc
