// Which of the input's audio and subtitle tracks an output keeps (`--audio-tracks`,
// `--subtitles`; JSON keys "audio_tracks" and "subtitles").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pipeline/core/status.h"

namespace tc {

struct AudioTracks {
  // kFirst: the track a player starts with (the first marked default, else the first).
  enum class Kind { kAll, kFirst, kLanguages } kind = Kind::kAll;
  std::vector<std::string> languages;  // kLanguages: ISO 639-2 codes ("eng"), lowercase
  bool operator==(const AudioTracks&) const = default;
  bool keeps_language(std::string_view language) const;
};

enum class SubtitleMode { kCopy, kNone };

// "all", "first", or languages separated by commas ("eng,fra").
Result<AudioTracks> parse_audio_tracks(std::string_view text);
std::string name_of(const AudioTracks& tracks);
Result<SubtitleMode> parse_subtitles(std::string_view name);
std::string_view name_of(SubtitleMode mode);

}  // namespace tc
