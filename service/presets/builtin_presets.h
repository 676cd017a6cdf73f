// The JSON text of each built-in preset (service/presets/builtin/*.json), compiled in by CMake
// (cmake/embed_presets.cmake writes builtin_presets.cc at configure time).
#pragma once

#include <string_view>
#include <vector>

namespace tc {

struct BuiltinPresetText {
  std::string_view file;  // "web-720p.json"
  std::string_view text;
};

const std::vector<BuiltinPresetText>& builtin_preset_texts();

}  // namespace tc
