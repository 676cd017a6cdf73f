// Named, versioned output presets and ladders: what `--preset NAME` expands into. A preset is
// data, one JSON file each: the built-in ones (service/presets/builtin/, compiled in), then a
// directory's files (the CLI's $TRANSCODE_PRESETS_DIR, the daemon's preset_dir), then each
// --presets-file, later ones replacing earlier ones of the same name (so a team's file can pin or
// change a built-in). Its keys are the command line's own option names without "--", and expand
// through the same parsers the options use (the CLI's job_args.cc), so a preset sets exactly the
// JobSpec fields its options would; an option given on the command line wins. The model sits
// below both the CLI and the daemon: the daemon serves its presets (ListPresets) to clients.
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

namespace tc {

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
// The output options a preset may set (an output's keys): the CLI's per-output options' names
// (job_args.cc; a unit test holds the two lists equal).
const std::vector<std::string>& preset_output_keys();

// A preset read from JSON text. kInvalidArgument naming `origin` and the problem: not JSON, a
// missing name/version/outputs, or an unknown key (named), which is refused rather than ignored
// so that a typo never silently yields a different encode.
Result<Preset> parse_preset(const std::string& text, const std::string& origin);

// Every preset: built-ins, then `dir`'s *.json (by name; "" or a missing directory: none), then
// `files`. The first bad file's problem, naming it.
Result<std::vector<Preset>> load_presets(const std::string& dir,
                                         const std::vector<std::string>& files);

// The preset named `name`; kInvalidArgument naming it when there is none.
Result<Preset> find_preset(const std::vector<Preset>& presets, const std::string& name);

}  // namespace tc
