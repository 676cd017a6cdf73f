#include "service/cli/job_args.h"

#include <charconv>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

namespace tc::cli {
namespace {

Status usage(std::string message) {
  return {Code::kInvalidArgument, std::move(message)};
}

Result<int> parse_int(const std::string& option, const std::string& text) {
  int value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size())
    return usage(option + ": '" + text + "' is not a whole number");
  return value;
}

Result<double> parse_seconds(const std::string& option, const std::string& text) {
  double value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0)
    return usage(option + ": '" + text + "' is not a number of seconds");
  return value;
}

// Wraps a parse error so that it names the option the user typed.
template <typename T>
Result<T> named(const std::string& option, Result<T> result) {
  if (result.is_ok()) return result;
  return usage(option + ": " + result.status().message());
}

using OutputSetter = std::function<Status(OutputSpec&, const std::string&)>;

// Options that apply to one output (or, before the first -o, to all of them).
const std::map<std::string, OutputSetter>& output_options() {
  static const std::map<std::string, OutputSetter> options{
      {"--size",
       [](OutputSpec& o, const std::string& v) {
         Status status = parse_size(v, o.width, o.height);
         return status.is_ok() ? status : usage("--size: " + status.message());
       }},
      {"--codec",
       [](OutputSpec& o, const std::string& v) {
         TC_ASSIGN_OR_RETURN(o.codec, named("--codec", parse_codec(v)));
         return Status::ok();
       }},
      {"--crf",
       [](OutputSpec& o, const std::string& v) {
         TC_ASSIGN_OR_RETURN(o.quality, parse_int("--crf", v));
         if (o.rate_control == RateControl::kDefault) o.rate_control = RateControl::kQuality;
         return Status::ok();
       }},
      {"--bitrate",
       [](OutputSpec& o, const std::string& v) {
         TC_ASSIGN_OR_RETURN(o.bitrate, named("--bitrate", parse_bitrate(v)));
         if (o.rate_control == RateControl::kDefault) o.rate_control = RateControl::kVbr;
         return Status::ok();
       }},
      {"--rc",
       [](OutputSpec& o, const std::string& v) {
         TC_ASSIGN_OR_RETURN(o.rate_control, named("--rc", parse_rate_control(v)));
         return Status::ok();
       }},
      {"--gop",
       [](OutputSpec& o, const std::string& v) {
         TC_ASSIGN_OR_RETURN(o.gop, parse_int("--gop", v));
         return Status::ok();
       }},
      {"--bframes",
       [](OutputSpec& o, const std::string& v) {
         TC_ASSIGN_OR_RETURN(o.b_frames, parse_int("--bframes", v));
         return Status::ok();
       }},
      {"--preset",
       [](OutputSpec& o, const std::string& v) {
         o.preset = v;
         return Status::ok();
       }},
      {"--container",
       [](OutputSpec& o, const std::string& v) {
         o.container = v;
         return Status::ok();
       }},
      {"--audio",
       [](OutputSpec& o, const std::string& v) {
         TC_ASSIGN_OR_RETURN(o.audio, named("--audio", parse_audio(v)));
         return Status::ok();
       }},
      {"--audio-bitrate",
       [](OutputSpec& o, const std::string& v) {
         TC_ASSIGN_OR_RETURN(o.audio_bitrate, named("--audio-bitrate", parse_bitrate(v)));
         return Status::ok();
       }},
  };
  return options;
}

Result<std::string> read_file(const std::string& path) {
  std::ifstream file(path);
  if (!file) return usage("--job: cannot read " + path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

struct PendingOutput {
  std::string path;
  std::vector<std::pair<std::string, std::string>> options;
};

}  // namespace

Result<JobArgs> parse_job_args(const std::vector<std::string>& args) {
  JobArgs parsed;
  std::vector<std::string> positional;
  std::vector<std::pair<std::string, std::string>> common;  // per-output options before any -o
  std::vector<PendingOutput> outputs;
  std::string job_file;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string option = args[i];
    std::string value;
    bool has_inline_value = false;
    if (auto eq = option.find('='); option.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = option.substr(eq + 1);
      option = option.substr(0, eq);
      has_inline_value = true;
    }
    auto take_value = [&]() -> Result<std::string> {
      if (has_inline_value) return value;
      if (i + 1 >= args.size()) return usage(option + ": needs a value");
      return args[++i];
    };
    if (option == "--json")
      parsed.json = true;
    else if (option == "--dry-run")
      parsed.dry_run = true;
    else if (option == "--quiet" || option == "-q")
      parsed.quiet = true;
    else if (option == "--wait")
      parsed.wait = true;
    else if (option == "-o" || option == "--output") {
      TC_ASSIGN_OR_RETURN(std::string path, take_value());
      outputs.push_back({path, {}});
    } else if (option == "--server") {
      TC_ASSIGN_OR_RETURN(parsed.server, take_value());
    } else if (option == "--job") {
      TC_ASSIGN_OR_RETURN(job_file, take_value());
    } else if (option == "--backend") {
      TC_ASSIGN_OR_RETURN(std::string name, take_value());
      TC_ASSIGN_OR_RETURN(parsed.spec.backend, named("--backend", parse_backend(name)));
    } else if (option == "--device") {
      TC_ASSIGN_OR_RETURN(parsed.spec.device, take_value());
    } else if (option == "--start" || option == "--duration") {
      TC_ASSIGN_OR_RETURN(std::string text, take_value());
      TC_ASSIGN_OR_RETURN(double seconds, parse_seconds(option, text));
      (option == "--start" ? parsed.spec.start_s : parsed.spec.duration_s) = seconds;
    } else if (output_options().count(option)) {
      TC_ASSIGN_OR_RETURN(std::string text, take_value());
      (outputs.empty() ? common : outputs.back().options).emplace_back(option, text);
    } else if (option.size() > 1 && option[0] == '-') {
      return usage("unknown option " + option + " (see transcode run --help)");
    } else {
      positional.push_back(option);
    }
  }

  if (!job_file.empty()) {
    if (!positional.empty() || !outputs.empty())
      return usage("--job: give the input and outputs in the file, not on the command line");
    TC_ASSIGN_OR_RETURN(std::string text, read_file(job_file));
    TC_ASSIGN_OR_RETURN(JobSpec spec, job_spec_from_json(text));
    BackendKind backend = parsed.spec.backend;
    std::string device = parsed.spec.device;
    parsed.spec = std::move(spec);
    if (backend != BackendKind::kAuto) parsed.spec.backend = backend;
    if (!device.empty()) parsed.spec.device = device;
    return parsed;
  }

  if (positional.empty()) return usage("missing INPUT (transcode run INPUT OUTPUT [options])");
  parsed.spec.input = positional[0];
  if (outputs.empty()) {
    if (positional.size() < 2) return usage("missing OUTPUT (or -o OUTPUT)");
    outputs.push_back({positional[1], {}});
    positional.erase(positional.begin() + 1);
  }
  if (positional.size() > 1)
    return usage("unexpected argument '" + positional[1] + "' (several outputs: -o OUT1 -o OUT2)");
  for (const PendingOutput& pending : outputs) {
    OutputSpec output;
    output.path = pending.path;
    using OptionList = std::vector<std::pair<std::string, std::string>>;
    for (const OptionList* list : std::initializer_list<const OptionList*>{
             &common, &pending.options})  // the output's own come last
      for (const auto& [option, text] : *list)
        TC_RETURN_IF_ERROR(output_options().at(option)(output, text));
    parsed.spec.outputs.push_back(std::move(output));
  }
  return parsed;
}

std::string job_args_help() {
  return R"(  INPUT OUTPUT [options]
  INPUT [options for all outputs] -o OUT1 [options for OUT1] -o OUT2 [options for OUT2] ...

Output options (before the first -o they apply to every output):
  --size WxH            output size; one side 0 keeps the aspect ratio (sides must be even)
  --codec NAME          h264 (default), hevc, av1, vp9, copy
  --crf N               constant quality (crf; CQP qp on VA-API)
  --bitrate B           target bitrate, e.g. 4M or 800k (VBR unless --rc says otherwise)
  --rc MODE             quality, cbr, vbr
  --gop N               frames between keyframes (default: 2 seconds)
  --bframes N           B-frames (default: the encoder's)
  --preset NAME         encoder preset (software default: veryfast)
  --container NAME      mp4, mkv, mpegts (default: from the extension)
  --audio MODE          auto (copy if the container takes it, else aac), copy, aac, none
  --audio-bitrate B     AAC bitrate (default 128k)
Job options:
  --backend NAME        auto (VA-API if an Intel GPU is usable, else software), vaapi,
                        software, vulkan, cuda
  --device PATH         hardware device (render node, e.g. /dev/dri/renderD128; CUDA index)
  --start S             start at S seconds
  --duration S          transcode S seconds
  --job FILE            the whole job as JSON (the daemon's job config shape)
  --json                print the final report as JSON
  --dry-run             print the plan and the equivalent ffmpeg command; run nothing
  --quiet               no progress bar
)";
}

}  // namespace tc::cli
