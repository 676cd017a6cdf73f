#include "service/presets/preset.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

#include "pipeline/core/file.h"
#include "service/presets/builtin_presets.h"

namespace tc {
namespace {

// Ordered: a preset's options apply in the file's order, as typed options would.
using json = nlohmann::ordered_json;

Status refused(const std::string& origin, const std::string& problem) {
  return {Code::kInvalidArgument, "preset " + origin + ": " + problem};
}

// A value as the option would be typed: strings as they are, numbers as JSON writes them.
Result<std::string> option_text(const json& value, const std::string& key,
                                const std::string& origin) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number()) return value.dump();
  return refused(origin, "'" + key + "' must be a string or a number");
}

template <typename Known>
Result<PresetValues> read_values(const json& object, const std::string& where,
                                 const std::string& origin, Known known) {
  if (!object.is_object()) return refused(origin, where + " must be an object");
  PresetValues values;
  for (const auto& [key, value] : object.items()) {
    if (key == "name" && where != "job") continue;
    if (!known(key)) return refused(origin, "unknown key '" + key + "' in " + where);
    TC_ASSIGN_OR_RETURN(std::string text, option_text(value, key, origin));
    values.emplace_back(key, std::move(text));
  }
  return values;
}

bool is_output_key(const std::string& key) {
  const auto& keys = preset_output_keys();
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

Result<PresetOutput> read_output(const json& object, size_t index, const std::string& origin) {
  std::string where = "outputs[" + std::to_string(index) + "]";
  TC_ASSIGN_OR_RETURN(PresetValues values, read_values(object, where, origin, is_output_key));
  PresetOutput output{"", std::move(values)};
  if (object.contains("name")) {
    if (!object["name"].is_string()) return refused(origin, where + ".name must be a string");
    output.name = object["name"].get<std::string>();
  }
  return output;
}

bool is_job_key(const std::string& key) {
  const auto& keys = preset_job_keys();
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

Status read_body(const json& doc, Preset& preset) {
  const std::string& origin = preset.origin;
  if (doc.contains("job")) {
    TC_ASSIGN_OR_RETURN(preset.job, read_values(doc["job"], "job", origin, is_job_key));
  }
  const json& outputs = doc.value("outputs", json());
  if (!outputs.is_array() || outputs.empty())
    return refused(origin, "needs \"outputs\": a list of one or more outputs");
  for (size_t i = 0; i < outputs.size(); ++i) {
    TC_ASSIGN_OR_RETURN(PresetOutput output, read_output(outputs[i], i, origin));
    preset.outputs.push_back(std::move(output));
  }
  if (preset.ladder())
    for (const PresetOutput& output : preset.outputs)
      if (output.name.empty()) return refused(origin, "each output of a ladder needs a \"name\"");
  return {};
}

// Later presets replace earlier ones of the same name.
void add_preset(std::vector<Preset>& presets, Preset preset) {
  auto same = std::find_if(presets.begin(), presets.end(),
                           [&](const Preset& p) { return p.name == preset.name; });
  if (same != presets.end())
    *same = std::move(preset);
  else
    presets.push_back(std::move(preset));
}

Status add_file(std::vector<Preset>& presets, const std::string& path) {
  Result<std::string> text = read_file(path);
  if (!text.is_ok()) return refused(path, text.status().message());
  TC_ASSIGN_OR_RETURN(Preset preset, parse_preset(*text, path));
  add_preset(presets, std::move(preset));
  return {};
}

std::vector<std::string> directory_files(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code error;
  if (dir.empty()) return files;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error))
    if (entry.path().extension() == ".json") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

const std::vector<std::string>& preset_job_keys() {
  static const std::vector<std::string> keys{"package", "segment", "segment-format"};
  return keys;
}

const std::vector<std::string>& preset_output_keys() {
  static const std::vector<std::string> keys{"size",
                                             "fps",
                                             "codec",
                                             "crf",
                                             "bitrate",
                                             "rc",
                                             "gop",
                                             "bframes",
                                             "encoder-preset",
                                             "container",
                                             "audio",
                                             "audio-bitrate",
                                             "audio-channels",
                                             "audio-rate",
                                             "audio-tracks",
                                             "subtitles",
                                             "hdr",
                                             "loudnorm"};
  return keys;
}

Result<Preset> parse_preset(const std::string& text, const std::string& origin) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return refused(origin, "not a JSON object");
  static const std::vector<std::string> top{"name",   "version", "summary",
                                            "source", "job",     "outputs"};
  for (const auto& [key, value] : doc.items())
    if (std::find(top.begin(), top.end(), key) == top.end())
      return refused(origin, "unknown key '" + key + "'");
  Preset preset;
  preset.origin = origin;
  if (!doc.value("name", json()).is_string() || doc["name"].get<std::string>().empty())
    return refused(origin, "needs a \"name\"");
  preset.name = doc["name"].get<std::string>();
  if (!doc.value("version", json()).is_number_integer() || doc["version"].get<int>() < 1)
    return refused(origin, "needs a \"version\": a whole number from 1");
  preset.version = doc["version"].get<int>();
  if (doc.contains("summary") && doc["summary"].is_string())
    preset.summary = doc["summary"].get<std::string>();
  TC_RETURN_IF_ERROR(read_body(doc, preset));
  return preset;
}

Result<std::vector<Preset>> load_presets(const std::string& dir,
                                         const std::vector<std::string>& files) {
  std::vector<Preset> presets;
  for (const BuiltinPresetText& builtin : builtin_preset_texts()) {
    TC_ASSIGN_OR_RETURN(Preset preset, parse_preset(std::string(builtin.text),
                                                    "built-in " + std::string(builtin.file)));
    preset.origin = "built-in";
    add_preset(presets, std::move(preset));
  }
  for (const std::string& file : directory_files(dir)) TC_RETURN_IF_ERROR(add_file(presets, file));
  for (const std::string& file : files) TC_RETURN_IF_ERROR(add_file(presets, file));
  return presets;
}

Result<Preset> find_preset(const std::vector<Preset>& presets, const std::string& name) {
  for (const Preset& preset : presets)
    if (preset.name == name) return preset;
  return Status(Code::kInvalidArgument,
                "--preset: unknown preset '" + name +
                    "' (transcode presets lists them; an encoder's own preset, such as "
                    "veryfast, is --encoder-preset)");
}

}  // namespace tc
