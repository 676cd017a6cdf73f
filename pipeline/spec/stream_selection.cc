#include "pipeline/spec/stream_selection.h"

#include <algorithm>

#include "pipeline/core/user_text.h"

namespace tc {
namespace {

bool is_language_code(std::string_view code) {
  return code.size() == 3 &&
         std::all_of(code.begin(), code.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}

}  // namespace

bool AudioTracks::keeps_language(std::string_view language) const {
  return std::find(languages.begin(), languages.end(), language) != languages.end();
}

Result<AudioTracks> parse_audio_tracks(std::string_view text) {
  if (text == "all") return AudioTracks{};
  if (text == "first") return AudioTracks{AudioTracks::Kind::kFirst, {}};
  AudioTracks tracks{AudioTracks::Kind::kLanguages, {}};
  for (size_t start = 0; start <= text.size();) {
    size_t comma = std::min(text.find(',', start), text.size());
    std::string_view code = text.substr(start, comma - start);
    if (!is_language_code(code))
      return Status(Code::kInvalidArgument,
                    "audio tracks " + quote_value(text) +
                        ": one of all, first, or ISO 639-2 language codes (e.g. eng,fra)");
    tracks.languages.emplace_back(code);
    start = comma + 1;
  }
  return tracks;
}

std::string name_of(const AudioTracks& tracks) {
  if (tracks.kind == AudioTracks::Kind::kAll) return "all";
  if (tracks.kind == AudioTracks::Kind::kFirst) return "first";
  std::string text;
  for (const std::string& language : tracks.languages) text += (text.empty() ? "" : ",") + language;
  return text;
}

Result<SubtitleMode> parse_subtitles(std::string_view name) {
  if (name == "copy") return SubtitleMode::kCopy;
  if (name == "none") return SubtitleMode::kNone;
  return Status(Code::kInvalidArgument,
                "unknown subtitle mode " + quote_value(name) + " (one of: copy, none)");
}

std::string_view name_of(SubtitleMode mode) {
  return mode == SubtitleMode::kCopy ? "copy" : "none";
}

}  // namespace tc
