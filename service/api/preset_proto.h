// transcode.v1.Preset <-> tc::Preset: the daemon answers ListPresets with its presets, and the
// `transcode` client expands a daemon's preset as it does a local one. Options keep their order
// (a preset's options apply in the file's order, so a later one wins as on a command line).
#pragma once

#include "service/presets/preset.h"
#include "transcode/v1/job.pb.h"

namespace tc {

void preset_to_proto(const Preset& preset, ::transcode::v1::Preset* proto);
Preset preset_from_proto(const ::transcode::v1::Preset& proto);

}  // namespace tc
