// `transcode run` / `transcode submit` options, defined once on a CLI11 App (the same definitions
// serve parsing, --help and the completion scripts), read back into a JobSpec:
//   INPUT OUTPUT [options]
//   INPUT [options for all] -o OUT1 [options for OUT1] -o OUT2 [options for OUT2] ...
// Options before the first -o apply to every output; options after an -o to that one only.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pipeline/core/status.h"
#include "pipeline/spec/job_spec.h"
#include "service/presets/preset.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace tc::cli {

struct JobArgs {
  JobSpec spec;
  bool json = false;     // --json: print the final report as JSON
  bool dry_run = false;  // --dry-run: print the plan and the ffmpeg command, run nothing
  bool quiet = false;    // --quiet: no progress bar
  // Every INPUT given (spec.input is the first): several with JobOptions' Inputs::kMany.
  std::vector<std::string> inputs;
};

// `run` takes one input; `submit` several, named through an output name template.
enum class Inputs { kOne, kMany };

struct OutputOption;  // one per-output option: its flag, help and how it sets an OutputSpec

// Where `--preset NAME` is looked up when no local preset (built-in, $TRANSCODE_PRESETS_DIR,
// --presets-file) has the name: `submit` asks the daemon. nullopt: none there either.
using PresetFallback = std::function<Result<std::optional<Preset>>(const std::string& name)>;

// Adds run's positionals and options to `app`; job_args() reads them back once it has parsed.
class JobOptions {
 public:
  // Inputs::kMany: INPUT... and -o TEMPLATE, or INPUT OUTPUT as with one.
  explicit JobOptions(CLI::App& app, Inputs inputs = Inputs::kOne);
  // The job the command line describes. Errors are kInvalidArgument naming the option.
  Result<JobArgs> job_args(const PresetFallback& fallback = nullptr) const;

 private:
  Status read_job_options(JobArgs& parsed) const;
  Result<JobSpec> spec_from_job_file(const JobArgs& parsed) const;
  Status add_outputs(JobSpec& spec, const std::optional<std::string>& positional,
                     const std::optional<Preset>& preset) const;
  // --preset's, loaded with --presets-file; `fallback` where none local has the name.
  Result<std::optional<Preset>> chosen_preset(const PresetFallback& fallback) const;
  Status apply_preset_job(const Preset& preset, JobSpec& spec) const;
  Status read_package_options(PackageSpec& package) const;
  Status read_thumbnail_options(ThumbnailSpec& thumbnails) const;

  CLI::App& app_;
  CLI::Option* input_;
  CLI::Option* output_;   // the positional OUTPUT
  CLI::Option* outputs_;  // -o/--output, repeatable
  std::vector<std::pair<const OutputOption*, CLI::Option*>> output_options_;
  CLI::Option* backend_;
  CLI::Option* device_;
  CLI::Option* start_;
  CLI::Option* duration_;
  CLI::Option* deinterlace_;
  CLI::Option* quality_;
  CLI::Option* package_;
  CLI::Option* package_dir_;
  CLI::Option* segment_;
  CLI::Option* segment_name_;
  CLI::Option* segment_format_;
  CLI::Option* no_stereo_audio_;
  CLI::Option* thumbnails_;
  CLI::Option* thumbnail_size_;
  CLI::Option* thumbnail_grid_;
  CLI::Option* gop_parallel_;
  CLI::Option* job_file_;
  CLI::Option* preset_;        // --preset NAME: a named output preset or ladder (preset.h)
  CLI::Option* presets_file_;  // --presets-file FILE, repeatable
  CLI::Option* json_;
  CLI::Option* dry_run_;
  CLI::Option* quiet_;
};

// The per-output options' names without "--" ("size", "crf"), in the table's order: what a
// preset's outputs may set (service/presets' preset_output_keys() names the same).
std::vector<std::string> output_option_names();

// Parses run's arguments alone (`args` without the program and command names).
Result<JobArgs> parse_job_args(const std::vector<std::string>& args);

}  // namespace tc::cli
