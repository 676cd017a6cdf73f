// Named, versioned output presets and ladders: what `--preset NAME` expands into. A preset is
// data, one JSON file each: the built-in ones (service/cli/presets/, compiled in), the files of
// $TRANSCODE_PRESETS_DIR, and each --presets-file, later ones replacing earlier ones of the same
// name (so a team's file can pin or change a built-in). Its keys are the command line's own option
// names without "--", and expand through the same parsers the options use, so a preset sets
// exactly the JobSpec fields its options would; an option given on the command line wins.
//   {"name": "web-720p", "version": 1, "summary": "...",
//    "job": {"package": "hls", "segment": 6},             // optional: job options
//    "outputs": [{"name": "720p", "size": "1280x720", "crf": 23}, ...]}  // output options
// One output: it applies to every output of the command line. Several (a ladder): they are the
// outputs, each "name" its output name (a rendition, with "job": {"package": ...}).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "pipeline/core/status.h"

namespace tc::cli {

// Option names (without "--") and their values, in the file's order.
using PresetValues = std::vector<std::pair<std::string, std::string>>;

struct PresetOutput {
  std::string name;  // a ladder rung's output name; empty for a one-output preset
  PresetValues options;
};

struct Preset {
  std::string name;
  int version = 0;
  std::string summary;
  std::string origin;  // "built-in" or the file it came from
  PresetValues job;
  std::vector<PresetOutput> outputs;
  bool ladder() const { return outputs.size() > 1; }
};

// The job options a preset may set (its "job" object's keys).
const std::vector<std::string>& preset_job_keys();

// A preset read from JSON text. kInvalidArgument naming `origin` and the problem: not JSON, a
// missing name/version/outputs, or an unknown key (named), which is refused rather than ignored
// so that a typo never silently yields a different encode.
Result<Preset> parse_preset(const std::string& text, const std::string& origin);

// Every preset: built-ins, then $TRANSCODE_PRESETS_DIR's *.json (by name), then `files`.
Result<std::vector<Preset>> load_presets(const std::vector<std::string>& files);

// The preset named `name`; kInvalidArgument naming it when there is none.
Result<Preset> find_preset(const std::vector<Preset>& presets, const std::string& name);

}  // namespace tc::cli
