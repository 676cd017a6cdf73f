#include "service/cli/job_args.h"

#include <CLI/CLI.hpp>

#include <charconv>
#include <map>

#include "pipeline/core/file.h"
#include "pipeline/spec/frame_rate.h"
#include "pipeline/spec/package_spec.h"
#include "pipeline/spec/thumbnail_spec.h"
#include "service/cli/completion.h"
#include "service/cli/presets_command.h"
#include "service/common/command_line.h"

namespace tc::cli {

// Messages leave the flag out: the caller prefixes the flag as the user typed it.
struct OutputOption {
  const char* flag;
  const char* value_name;
  const char* help;
  Status (*apply)(OutputSpec& output, const std::string& value);
};

namespace {

Status usage(std::string message) {
  return {Code::kInvalidArgument, std::move(message)};
}

Result<int> parse_int(const std::string& text) {
  int value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size())
    return usage("'" + text + "' is not a whole number");
  return value;
}

Result<double> parse_seconds(const std::string& text) {
  double value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !(value >= 0) ||
      !std::isfinite(value))
    return usage("'" + text + "' is not a number of seconds");
  if (value > kMaxSpecSeconds)
    return usage("'" + text + "' is more than " +
                 std::to_string(static_cast<long long>(kMaxSpecSeconds)) + " seconds");
  return value;
}

// Sets `field` from a parse, or returns the parse's error.
template <typename T>
Status assign(T& field, Result<T> parsed) {
  if (!parsed.is_ok()) return parsed.status();
  field = std::move(parsed).value();
  return {};
}

const std::vector<OutputOption>& output_options() {
  static const std::vector<OutputOption> options{
      {"--size", "WxH", "output size; one side 0 keeps the aspect ratio (sides must be even)",
       [](OutputSpec& o, const std::string& v) { return parse_size(v, o.width, o.height); }},
      {"--fps", "N|N/D",
       "output frame rate, e.g. 25 or 30000/1001: frames dropped or repeated to it, each output "
       "frame the source frame nearest its time (default: the source's rate)",
       [](OutputSpec& o, const std::string& v) { return assign(o.fps, parse_frame_rate(v)); }},
      {"--codec", "NAME", "h264 (default), hevc, av1, vp9, copy",
       [](OutputSpec& o, const std::string& v) { return assign(o.codec, parse_codec(v)); }},
      {"--crf", "N", "constant quality (crf; CQP qp on VA-API)",
       [](OutputSpec& o, const std::string& v) {
         TC_RETURN_IF_ERROR(assign(o.quality, parse_int(v)));
         if (o.rate_control == RateControl::kDefault) o.rate_control = RateControl::kQuality;
         return Status::ok();
       }},
      {"--bitrate", "B", "target bitrate, e.g. 4M or 800k (VBR unless --rc says otherwise)",
       [](OutputSpec& o, const std::string& v) {
         TC_RETURN_IF_ERROR(assign(o.bitrate, parse_bitrate(v)));
         if (o.rate_control == RateControl::kDefault) o.rate_control = RateControl::kVbr;
         return Status::ok();
       }},
      {"--rc", "MODE", "quality, cbr, vbr",
       [](OutputSpec& o, const std::string& v) {
         return assign(o.rate_control, parse_rate_control(v));
       }},
      {"--gop", "N", "frames between keyframes (default: 2 seconds)",
       [](OutputSpec& o, const std::string& v) { return assign(o.gop, parse_int(v)); }},
      {"--bframes", "N", "B-frames (default: the encoder's)",
       [](OutputSpec& o, const std::string& v) { return assign(o.b_frames, parse_int(v)); }},
      {"--encoder-preset", "NAME", "encoder preset (software default: veryfast)",
       [](OutputSpec& o, const std::string& v) {
         o.preset = v;
         return Status::ok();
       }},
      {"--container", "NAME", "mp4, mkv, mpegts (default: from the extension)",
       [](OutputSpec& o, const std::string& v) {
         o.container = v;
         return Status::ok();
       }},
      {"--audio", "MODE", "auto (copy if the container takes it, else aac), copy, aac, none",
       [](OutputSpec& o, const std::string& v) { return assign(o.audio, parse_audio(v)); }},
      {"--audio-bitrate", "B", "bitrate of each encoded audio track (default 64k a channel)",
       [](OutputSpec& o, const std::string& v) {
         return assign(o.audio_bitrate, parse_bitrate(v));
       }},
      {"--audio-channels", "N", "downmix encoded audio to N channels (default: the source's)",
       [](OutputSpec& o, const std::string& v) { return assign(o.audio_channels, parse_int(v)); }},
      {"--audio-rate", "HZ", "sample rate of encoded audio (default: the source's)",
       [](OutputSpec& o, const std::string& v) { return assign(o.audio_rate, parse_int(v)); }},
      {"--audio-tracks", "WHICH", "all (default), first, or languages: eng,fra",
       [](OutputSpec& o, const std::string& v) {
         return assign(o.audio_tracks, parse_audio_tracks(v));
       }},
      {"--subtitles", "MODE", "copy (default; converted where the container needs), none",
       [](OutputSpec& o, const std::string& v) { return assign(o.subtitles, parse_subtitles(v)); }},
      {"--hdr", "MODE",
       "HDR sources: auto (keep where the output can be 10-bit, else tonemap), keep, tonemap",
       [](OutputSpec& o, const std::string& v) { return assign(o.hdr, parse_hdr(v)); }},
      {"--loudnorm", "TARGET",
       "EBU R128 loudness normalisation (audio encoded): off (default), ebu (-23 LUFS), "
       "streaming (-16 LUFS)",
       [](OutputSpec& o, const std::string& v) { return assign(o.loudnorm, parse_loudnorm(v)); }},
  };
  return options;
}

Status named(const std::string& flag, const Status& status) {
  return status.is_ok() ? status : usage(flag + ": " + status.message());
}

const std::string& last_value(const CLI::Option* option) {
  return option->results().back();
}

// A thumbnails check of the spec, named by the option that sets its field.
Status named_by_option(const Status& status) {
  if (status.is_ok()) return status;
  std::string_view field = status.field();
  return named(field == "thumbnails.interval_s" ? "--thumbnails"
               : field == "thumbnails.width"    ? "--thumbnail-size"
                                                : "--thumbnail-grid",
               status);
}

constexpr const char* kOutputGroup = "Output options (before the first -o: for every output)";
constexpr const char* kJobGroup = "Job options";

// Output options with the values they were given, in command-line order.
using OptionValues = std::vector<std::pair<const OutputOption*, std::string>>;

// An output and the options written after its -o.
struct PendingOutput {
  std::string path;
  OptionValues options;
  const PresetValues* preset = nullptr;  // applied first: the command line's options win
};

const OutputOption* output_option(std::string_view name) {
  for (const OutputOption& option : output_options())
    if (std::string_view(option.flag).substr(2) == name) return &option;
  return nullptr;
}

// The preset's output options, as if typed before every other option.
Status apply_preset(const Preset& preset, const PresetValues& values, OutputSpec& output,
                    bool& codec_given) {
  for (const auto& [key, value] : values) {
    codec_given |= key == "codec";
    const OutputOption* option = output_option(key);
    // A daemon's preset (PresetFallback) may come from a newer version than this client's.
    if (!option) return usage("--preset " + preset.name + ": unknown option '" + key + "'");
    TC_RETURN_IF_ERROR(named("--preset " + preset.name + ": " + key, option->apply(output, value)));
  }
  return {};
}

// A ladder's rungs are the outputs; a one-output preset applies to each output of the line.
Status add_preset_outputs(const Preset& preset, std::vector<PendingOutput>& outputs,
                          bool positional) {
  if (!preset.ladder()) {
    for (PendingOutput& output : outputs) output.preset = &preset.outputs.front().options;
    return {};
  }
  if (!outputs.empty() || positional)
    return usage("--preset " + preset.name + ": a ladder of " +
                 std::to_string(preset.outputs.size()) +
                 " outputs that it names itself: give no OUTPUT and no -o");
  for (const PresetOutput& rung : preset.outputs) outputs.push_back({rung.name, {}, &rung.options});
  return {};
}

}  // namespace

std::vector<std::string> output_option_names() {
  std::vector<std::string> names;
  for (const OutputOption& option : output_options()) names.emplace_back(option.flag + 2);
  return names;
}

namespace {

// The options whose value is a name from a parser's table: completion offers the table's names.
void offer_choices(const CLI::App& app) {
  constexpr std::pair<const char*, Choice> kChoices[] = {
      {"--codec", Choice::kCodec},
      {"--rc", Choice::kRateControl},
      {"--container", Choice::kContainer},
      {"--audio", Choice::kAudio},
      {"--hdr", Choice::kHdr},
      {"--backend", Choice::kBackend},
      {"--deinterlace", Choice::kDeinterlace},
      {"--package", Choice::kPackage},
      {"--segment-format", Choice::kSegmentFormat}};
  for (const auto& [flag, choice] : kChoices)
    offer_values(app.get_option(flag), choice_names(choice));
  offer_preset_names(app.get_option("--preset"));
}

}  // namespace

JobOptions::JobOptions(CLI::App& app, Inputs inputs) : app_(app) {
  input_ = app.add_option("INPUT", "input file or URL")->type_name("");
  if (inputs == Inputs::kMany)
    input_->description("input files or URLs (several: -o with a name template)")
        ->expected(1, -1)
        ->allow_extra_args();  // a positional takes more than its minimum only with this
  output_ = app.add_option("OUTPUT", "output file (or -o OUTPUT, repeatable)")->type_name("");
  outputs_ = app.add_option("-o,--output", "an output; the output options after it are its own")
                 ->type_name("FILE")
                 ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
                 ->group(kOutputGroup);
  for (const OutputOption& option : output_options())
    output_options_.emplace_back(&option, app.add_option(option.flag)
                                              ->description(option.help)
                                              ->type_name(option.value_name)
                                              ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
                                              ->group(kOutputGroup));
  auto job_option = [&app](const char* flag, const char* value_name, const char* help) {
    return app.add_option(flag)->description(help)->type_name(value_name)->group(kJobGroup);
  };
  auto job_flag = [&app](const char* flag, const char* help) {
    return app.add_flag(flag)->description(help)->group(kJobGroup);
  };
  backend_ = job_option("--backend", "NAME",
                        "auto (VA-API if an Intel GPU is usable, else software), vaapi, qsv, "
                        "software, vulkan, cuda");
  device_ = job_option("--device", "PATH",
                       "hardware device (render node, e.g. /dev/dri/renderD128; CUDA index)");
  start_ = job_option("--start", "S", "start at S seconds");
  duration_ = job_option("--duration", "S", "transcode S seconds");
  deinterlace_ =
      job_option("--deinterlace", "MODE", "auto (when the source is interlaced), on, off");
  quality_ = job_option("--quality", "METRICS",
                        "measure each output against the source: psnr, ssim or psnr,ssim (decodes "
                        "every output again; off by default)");
  package_ = job_option("--package", "KIND",
                        "write a streaming package instead of files: hls, dash, or cmaf (both "
                        "manifests over one set of segments); each -o NAME is a rendition");
  package_dir_ = job_option("--package-dir", "DIR", "the package's directory (with --package)");
  segment_ = job_option("--segment", "S", "package segment duration in seconds (default 4)");
  segment_name_ =
      job_option("--segment-name", "TEMPLATE", "media segment names, {n} the number (seg_{n})");
  segment_format_ = job_option("--segment-format", "FORMAT",
                               "package media segments: fmp4 (CMAF, default) or ts (MPEG-TS for "
                               "old HLS clients; --package hls only)");
  no_stereo_audio_ = job_flag("--no-stereo-audio",
                              "package: no stereo AAC rendition beside a surround audio track "
                              "(made by default, for players on stereo devices)");
  thumbnails_ = job_option("--thumbnails", "INTERVAL[:WxH]",
                           "thumbnail sprite sheets (JPEG) and a WebVTT index: a tile every "
                           "INTERVAL seconds (e.g. 10, or 10:160x0)");
  thumbnail_size_ = job_option("--thumbnail-size", "WxH",
                               "thumbnail tile size (default 160x0: 160 wide, the height by the "
                               "aspect ratio)");
  thumbnail_grid_ = job_option("--thumbnail-grid", "CxR",
                               "thumbnail tiles per sheet, across x down (default 5x5)");
  gop_parallel_ = job_option("--gop-parallel", "N",
                             "encode each software (libx264) output with up to N encoders at once, "
                             "each a chunk of whole GOPs (0: auto, from the cores, for a ladder's "
                             "outputs, or a daemon node's setting; 1: one encoder per output, "
                             "the least memory; 2 or more: a single output too)")
                      ->check(CLI::Range(0, kMaxGopParallel));
  job_file_ = job_option("--job", "FILE", "the whole job as JSON (the daemon's job config shape)");
  preset_ = job_option("--preset", "NAME",
                       "a named output preset or ladder (transcode presets lists them): sets the "
                       "options it names; options given on the command line win");
  presets_file_ = job_option("--presets-file", "FILE", "more presets (JSON), repeatable")
                      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  json_ = job_flag("--json", "print the final report as JSON");
  dry_run_ = job_flag("--dry-run", "print the plan and the equivalent ffmpeg command; run nothing");
  quiet_ = job_flag("-q,--quiet", "no progress bar");
  offer_choices(app);
  app.footer(
      "Outputs: INPUT OUTPUT [options], or several from one decode:\n"
      "  INPUT [options for all] -o OUT1 [options for OUT1] -o OUT2 [options for OUT2] ...\n"
      "Options before the first -o apply to every output; after an -o, to that output only.");
}

Status JobOptions::read_job_options(JobArgs& parsed) const {
  parsed.json = json_->count() > 0;
  parsed.dry_run = dry_run_->count() > 0;
  parsed.quiet = quiet_->count() > 0;
  JobSpec& spec = parsed.spec;
  if (backend_->count())
    TC_RETURN_IF_ERROR(
        named("--backend", assign(spec.backend, parse_backend(last_value(backend_)))));
  if (device_->count()) spec.device = last_value(device_);
  if (start_->count())
    TC_RETURN_IF_ERROR(named("--start", assign(spec.start_s, parse_seconds(last_value(start_)))));
  if (duration_->count())
    TC_RETURN_IF_ERROR(
        named("--duration", assign(spec.duration_s, parse_seconds(last_value(duration_)))));
  if (deinterlace_->count())
    TC_RETURN_IF_ERROR(named(
        "--deinterlace", assign(spec.deinterlace, parse_deinterlace(last_value(deinterlace_)))));
  if (quality_->count())
    TC_RETURN_IF_ERROR(named(
        "--quality", assign(spec.quality_metrics, parse_quality_metrics(last_value(quality_)))));
  if (gop_parallel_->count())
    TC_RETURN_IF_ERROR(
        named("--gop-parallel", assign(spec.gop_parallel, parse_int(last_value(gop_parallel_)))));
  TC_RETURN_IF_ERROR(read_thumbnail_options(spec.thumbnails));
  return read_package_options(spec.package);
}

Status JobOptions::read_thumbnail_options(ThumbnailSpec& thumbnails) const {
  if (thumbnails_->count())
    TC_RETURN_IF_ERROR(
        named("--thumbnails", parse_thumbnails(last_value(thumbnails_), thumbnails)));
  if (thumbnail_size_->count())
    TC_RETURN_IF_ERROR(named("--thumbnail-size", parse_size(last_value(thumbnail_size_),
                                                            thumbnails.width, thumbnails.height)));
  if (thumbnail_grid_->count())
    TC_RETURN_IF_ERROR(named("--thumbnail-grid", parse_size(last_value(thumbnail_grid_),
                                                            thumbnails.columns, thumbnails.rows)));
  if ((thumbnail_size_->count() || thumbnail_grid_->count()) && !thumbnails.on)
    return usage("--thumbnail-size and --thumbnail-grid need --thumbnails INTERVAL");
  JobSpec alone;
  alone.thumbnails = thumbnails;
  return named_by_option(validate_thumbnails(alone));
}

Status JobOptions::read_package_options(PackageSpec& package) const {
  if (package_->count())
    TC_RETURN_IF_ERROR(
        named("--package", assign(package.kind, parse_package_kind(last_value(package_)))));
  if (package_dir_->count()) package.dir = last_value(package_dir_);
  if (segment_->count()) {
    TC_RETURN_IF_ERROR(
        named("--segment", assign(package.segment_s, parse_seconds(last_value(segment_)))));
    if (package.segment_s <= 0) return usage("--segment: must be more than 0 seconds");
  }
  if (segment_name_->count()) package.segment_name = last_value(segment_name_);
  if (segment_format_->count())
    TC_RETURN_IF_ERROR(
        named("--segment-format",
              assign(package.segment_format, parse_segment_format(last_value(segment_format_)))));
  if (no_stereo_audio_->count()) package.stereo_audio = false;
  bool asked = package_dir_->count() || segment_->count() || segment_name_->count() ||
               segment_format_->count() || no_stereo_audio_->count();
  if (asked && !package.on())
    return usage(
        "--package-dir, --segment, --segment-name, --segment-format and --no-stereo-audio need "
        "--package hls|dash|cmaf");
  if (package.on() && package.dir.empty()) return usage("--package: needs --package-dir DIR");
  if (package.segment_format == SegmentFormat::kTs && package.kind != PackageKind::kHls)
    return usage("--segment-format ts: MPEG-TS segments are for --package hls only (" +
                 std::string(name_of(package.kind)) + " needs fmp4)");
  return {};
}

Result<JobSpec> JobOptions::spec_from_job_file(const JobArgs& parsed) const {
  if (input_->count() || output_->count() || outputs_->count())
    return usage("--job: give the input and outputs in the file, not on the command line");
  Result<std::string> text = read_file(last_value(job_file_));
  if (!text.is_ok()) return usage("--job: " + text.status().message());
  TC_ASSIGN_OR_RETURN(JobSpec spec, job_spec_from_json(*text));
  // --backend and --device on the command line override the file's.
  if (backend_->count()) spec.backend = parsed.spec.backend;
  if (device_->count()) spec.device = parsed.spec.device;
  if (deinterlace_->count()) spec.deinterlace = parsed.spec.deinterlace;
  if (quality_->count()) spec.quality_metrics = parsed.spec.quality_metrics;
  if (thumbnails_->count()) spec.thumbnails = parsed.spec.thumbnails;
  if (gop_parallel_->count()) spec.gop_parallel = parsed.spec.gop_parallel;
  return spec;
}

// Each output gets the options before the first -o, then its own: the parse order says which -o
// an option follows.
Status JobOptions::add_outputs(JobSpec& spec, const std::optional<std::string>& positional,
                               const std::optional<Preset>& preset) const {
  OptionValues common;
  std::vector<PendingOutput> outputs;
  std::map<const CLI::Option*, size_t> seen;
  for (const CLI::Option* option : app_.parse_order()) {
    size_t index = seen[option]++;
    if (option == outputs_) {
      outputs.push_back({option->results()[index], {}});
      continue;
    }
    for (const auto& [definition, bound] : output_options_)
      if (bound == option)
        (outputs.empty() ? common : outputs.back().options)
            .emplace_back(definition, option->results()[index]);
  }
  if (preset && preset->ladder()) {
    TC_RETURN_IF_ERROR(add_preset_outputs(*preset, outputs, positional.has_value()));
  } else if (outputs.empty()) {
    if (!positional) return usage("missing OUTPUT (or -o OUTPUT)");
    outputs.push_back({*positional, {}});
  } else if (positional) {
    return usage("unexpected argument '" + *positional + "' (several outputs: -o OUT1 -o OUT2)");
  }
  if (preset && !preset->ladder()) TC_RETURN_IF_ERROR(add_preset_outputs(*preset, outputs, false));
  for (const PendingOutput& pending : outputs) {
    OutputSpec output;
    output.path = pending.path;
    bool codec_given = false;
    if (pending.preset)
      TC_RETURN_IF_ERROR(apply_preset(*preset, *pending.preset, output, codec_given));
    // The options before the first -o, then the output's own (so they win).
    for (const OptionValues* list :
         std::initializer_list<const OptionValues*>{&common, &pending.options})
      for (const auto& [definition, value] : *list) {
        codec_given |= std::string_view(definition->flag) == "--codec";
        TC_RETURN_IF_ERROR(named(definition->flag, definition->apply(output, value)));
      }
    if (!codec_given) output.codec = default_codec(output);
    spec.outputs.push_back(std::move(output));
  }
  return {};
}

Result<std::optional<Preset>> JobOptions::chosen_preset(const PresetFallback& fallback) const {
  if (!preset_->count()) {
    if (presets_file_->count()) return usage("--presets-file: needs --preset NAME");
    return std::optional<Preset>();
  }
  TC_ASSIGN_OR_RETURN(std::vector<Preset> presets, load_local_presets(presets_file_->results()));
  Result<Preset> local = find_preset(presets, last_value(preset_));
  if (local.is_ok()) return std::optional<Preset>(std::move(local).value());
  if (!fallback) return local.status();
  TC_ASSIGN_OR_RETURN(std::optional<Preset> elsewhere, fallback(last_value(preset_)));
  if (!elsewhere) return local.status();
  return elsewhere;
}

// The preset's job options, before the command line's (which replace them).
Status JobOptions::apply_preset_job(const Preset& preset, JobSpec& spec) const {
  PackageSpec& package = spec.package;
  for (const auto& [key, value] : preset.job) {
    std::string flag = "--preset " + preset.name + ": " + key;
    if (key == "package")
      TC_RETURN_IF_ERROR(named(flag, assign(package.kind, parse_package_kind(value))));
    else if (key == "segment")
      TC_RETURN_IF_ERROR(named(flag, assign(package.segment_s, parse_seconds(value))));
    else if (key == "segment-format")
      TC_RETURN_IF_ERROR(named(flag, assign(package.segment_format, parse_segment_format(value))));
    else
      return usage("--preset " + preset.name + ": unknown job option '" + key + "'");
  }
  return {};
}

Result<JobArgs> JobOptions::job_args(const PresetFallback& fallback) const {
  JobArgs parsed;
  TC_ASSIGN_OR_RETURN(std::optional<Preset> preset, chosen_preset(fallback));
  if (preset && job_file_->count()) return usage("--preset: not with --job (the file is the job)");
  if (preset) TC_RETURN_IF_ERROR(apply_preset_job(*preset, parsed.spec));
  TC_RETURN_IF_ERROR(read_job_options(parsed));
  if (job_file_->count()) {
    TC_ASSIGN_OR_RETURN(parsed.spec, spec_from_job_file(parsed));
    return parsed;
  }
  if (!input_->count()) return usage("missing INPUT (transcode run INPUT OUTPUT [options])");
  // INPUT OUTPUT, or INPUT... -o: with several input words and no -o, the last is the output.
  parsed.inputs = input_->results();
  std::optional<std::string> positional;
  if (output_->count())
    positional = last_value(output_);
  else if (parsed.inputs.size() == 2 && !outputs_->count()) {
    positional = parsed.inputs.back();
    parsed.inputs.pop_back();
  }
  if (parsed.inputs.size() > 1 && !outputs_->count())
    return usage("several inputs: name their outputs with -o TEMPLATE (e.g. -o 'out/{stem}.mp4')");
  parsed.spec.input = parsed.inputs.front();
  TC_RETURN_IF_ERROR(add_outputs(parsed.spec, positional, preset));
  normalize_package(parsed.spec);
  return parsed;
}

Result<JobArgs> parse_job_args(const std::vector<std::string>& args) {
  CLI::App app("transcode run", "run");
  set_up_app(app, "run");
  JobOptions options(app);
  TC_ASSIGN_OR_RETURN(std::optional<std::string> reply, parse_command_line(app, args));
  if (reply) return usage("--help or --version asked: nothing to run");
  return options.job_args();
}

}  // namespace tc::cli
