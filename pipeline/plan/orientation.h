// Turning a rotated source's pixels upright (a phone's display matrix), once, before the split.
// Every encoded output gets upright pixels and no display matrix: Matroska and MPEG-TS in FFmpeg
// 5.1 cannot store the matrix, players of packages differ on it, and `--size` then means the
// size the viewer sees. A copied stream keeps its matrix where the container holds it (MP4).
#pragma once

#include <string>

#include "pipeline/hw/backends.h"
#include "pipeline/plan/plan.h"

namespace tc {

// The clockwise quarter turns (0..3) that make the source upright: a display matrix that rotates
// by `rotation_deg` counter-clockwise (av_display_rotation_get), snapped to a quarter turn.
int upright_quarter_turns(double rotation_deg);

// The backend's filter for `quarter_turns` on device frames (BackendDesc::turns), where this
// FFmpeg has it; empty where not: the frames then turn in memory, and a device decoder's frames
// are decoded in software instead (plan_decode says so), not downloaded and uploaded again.
FilterDesc device_turn_filter(const BackendDesc& backend, int quarter_turns);

// The plan: none when the source is upright. `frames_on_device`: frames reach the graph's
// source on the device (decoded there, or uploaded first); `fixed_pool_frames`: frames held
// downstream of a device filter's own pool where the backend's pools are fixed (else 0).
OrientationPlan plan_orientation(const VideoInfo& video, const BackendDesc& backend,
                                 bool frames_on_device, const StageDevice& device,
                                 int fixed_pool_frames);

// The source as the viewer sees it: its sides swapped by a quarter turn.
VideoInfo displayed(const VideoInfo& video);

}  // namespace tc
