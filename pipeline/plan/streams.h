// An output's audio and subtitle tracks: which of the input's it keeps, copied or converted,
// and what became of every input stream (nothing is dropped without a reason).
#pragma once

#include <string>
#include <vector>

#include "pipeline/plan/plan.h"

namespace tc {

// The most audio tracks one output keeps: each is a decoder and an encoder in memory.
inline constexpr size_t kMaxKeptAudioTracks = 64;

// Fills `output.audio` and `output.subtitles` and appends an outcome for every input stream
// to `outcomes`, in stream order. Errors: --audio copy into a container that cannot hold a
// kept track, or --audio aac into webm (kUnsupported); --audio-tracks languages none of the
// input's tracks has; more than kMaxKeptAudioTracks tracks kept; --codec copy of a video that
// webm cannot hold (kInput). Encoded tracks get a layout their codec signals natively
// (audio_format.h).
Status plan_streams(const OutputSpec& spec, const std::string& container, const MediaInfo& media,
                    size_t output_index, OutputPlan& output, std::vector<StreamOutcome>& outcomes);

// The input stream indexes of the audio tracks each graph decodes: those some output encodes.
std::vector<int> encoded_audio_streams(const std::vector<OutputPlan>& outputs);

}  // namespace tc
