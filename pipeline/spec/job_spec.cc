#include "pipeline/spec/job_spec.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <type_traits>

#include "pipeline/core/text_field.h"
#include "pipeline/core/user_text.h"
#include "pipeline/spec/audio_spec.h"
#include "pipeline/spec/frame_rate.h"
#include "pipeline/spec/json_fields.h"
#include "pipeline/spec/package_spec.h"
#include "pipeline/spec/thumbnail_spec.h"

namespace tc {
namespace {

// One table per enum: the names users type, in both directions.
template <typename Enum>
struct Named {
  Enum value;
  std::string_view name;
};

constexpr std::array kBackendNames{Named<BackendKind>{BackendKind::kAuto, "auto"},
                                   Named<BackendKind>{BackendKind::kSoftware, "software"},
                                   Named<BackendKind>{BackendKind::kVaapi, "vaapi"},
                                   Named<BackendKind>{BackendKind::kVulkan, "vulkan"},
                                   Named<BackendKind>{BackendKind::kCuda, "cuda"},
                                   Named<BackendKind>{BackendKind::kQsv, "qsv"}};
constexpr std::array kCodecNames{
    Named<VideoCodec>{VideoCodec::kH264, "h264"}, Named<VideoCodec>{VideoCodec::kHevc, "hevc"},
    Named<VideoCodec>{VideoCodec::kAv1, "av1"}, Named<VideoCodec>{VideoCodec::kVp9, "vp9"},
    Named<VideoCodec>{VideoCodec::kCopy, "copy"}};
constexpr std::array kRateControlNames{Named<RateControl>{RateControl::kDefault, "default"},
                                       Named<RateControl>{RateControl::kQuality, "quality"},
                                       Named<RateControl>{RateControl::kCbr, "cbr"},
                                       Named<RateControl>{RateControl::kVbr, "vbr"}};
constexpr std::array kAudioNames{
    Named<AudioMode>{AudioMode::kAuto, "auto"}, Named<AudioMode>{AudioMode::kCopy, "copy"},
    Named<AudioMode>{AudioMode::kAac, "aac"}, Named<AudioMode>{AudioMode::kNone, "none"}};
constexpr std::array kHdrNames{Named<HdrMode>{HdrMode::kAuto, "auto"},
                               Named<HdrMode>{HdrMode::kKeep, "keep"},
                               Named<HdrMode>{HdrMode::kTonemap, "tonemap"}};
constexpr std::array kDeinterlaceNames{Named<Deinterlace>{Deinterlace::kAuto, "auto"},
                                       Named<Deinterlace>{Deinterlace::kOn, "on"},
                                       Named<Deinterlace>{Deinterlace::kOff, "off"}};
constexpr std::array kPackageNames{
    Named<PackageKind>{PackageKind::kNone, "none"}, Named<PackageKind>{PackageKind::kHls, "hls"},
    Named<PackageKind>{PackageKind::kDash, "dash"}, Named<PackageKind>{PackageKind::kCmaf, "cmaf"}};
constexpr std::array kSegmentFormatNames{Named<SegmentFormat>{SegmentFormat::kFmp4, "fmp4"},
                                         Named<SegmentFormat>{SegmentFormat::kTs, "ts"}};

// Each container's name, and the other names (extensions) that mean it.
struct ContainerNames {
  std::string_view name;
  std::array<std::string_view, 2> also;
};
constexpr std::array kContainerNames{
    ContainerNames{"mp4", {"m4v", "mov"}}, ContainerNames{"mkv", {"matroska"}},
    ContainerNames{"webm", {}}, ContainerNames{"mpegts", {"ts", "m2ts"}}};

template <typename Table>
std::vector<std::string> names_in(const Table& table) {
  std::vector<std::string> names;
  for (const auto& entry : table) names.emplace_back(entry.name);
  return names;
}

template <typename Enum, size_t N>
std::string_view name_in(const std::array<Named<Enum>, N>& table, Enum value) {
  for (const auto& entry : table)
    if (entry.value == value) return entry.name;
  return "?";
}

template <typename Enum, size_t N>
Result<Enum> parse_in(const std::array<Named<Enum>, N>& table, std::string_view name,
                      std::string_view what) {
  for (const auto& entry : table)
    if (entry.name == name) return entry.value;
  std::string choices;
  for (const auto& entry : table)
    choices += (choices.empty() ? "" : ", ") + std::string(entry.name);
  return Status(Code::kInvalidArgument, "unknown " + std::string(what) + " " + quote_value(name) +
                                            " (one of: " + choices + ")");
}

Status invalid(std::string message) {
  return {Code::kInvalidArgument, std::move(message)};
}

Status invalid(std::string field, const std::string& problem) {
  return Status::of_field(Code::kInvalidArgument, std::move(field), problem);
}

std::string lower_extension(const std::string& path) {
  auto slash = path.find_last_of('/');
  auto dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string extension = path.substr(dot + 1);
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return extension;
}

std::string size_text(const OutputSpec& output) {
  return std::to_string(output.width) + "x" + std::to_string(output.height);
}

Status validate_output(const OutputSpec& output, const std::string& field, int max_side) {
  if (output.path.empty()) return invalid(field + ".path", "missing");
  TC_ASSIGN_OR_RETURN(std::string container, container_of(output));
  if (output.width < 0 || output.height < 0)
    return invalid(field, "size " + size_text(output) + " has a negative side");
  if (output.width > max_side || output.height > max_side)
    return invalid(field, "size " + size_text(output) + " has a side longer than " +
                              std::to_string(max_side) + " pixels");
  if (output.width % 2 || output.height % 2)
    return invalid(field, "size " + size_text(output) +
                              " must have even sides (4:2:0 video); 0 keeps the aspect ratio");
  if (output.codec == VideoCodec::kCopy && (output.width || output.height))
    return invalid(field, "codec copy cannot resize");
  bool needs_bitrate =
      output.rate_control == RateControl::kCbr || output.rate_control == RateControl::kVbr;
  if (needs_bitrate && output.bitrate <= 0)
    return invalid(field + ".bitrate", "rate control " + std::string(name_of(output.rate_control)) +
                                           " needs a bitrate");
  if (output.bitrate < 0) return invalid(field + ".bitrate", "negative");
  if (output.quality < -1 || output.quality > 63)
    return invalid(field + ".quality", std::to_string(output.quality) + " is outside 0..63");
  if (output.gop < 0) return invalid(field + ".gop", "negative");
  TC_RETURN_IF_ERROR(validate_frame_rate(output.fps, field + ".fps"));
  if (output.codec == VideoCodec::kCopy && output.fps.set())
    return invalid(field + ".fps", "codec copy cannot change the frame rate");
  if (output.b_frames < -1 || output.b_frames > 16)
    return invalid(field + ".b_frames", std::to_string(output.b_frames) + " is outside 0..16");
  TC_RETURN_IF_ERROR(validate_audio_options(output, field));
  if (output.loudnorm != Loudnorm::kOff && output.audio == AudioMode::kCopy)
    return invalid(field + ".loudnorm", "a copied track keeps its loudness: not with --audio copy");
  if (container == "mpegts" &&
      (output.codec == VideoCodec::kVp9 || output.codec == VideoCodec::kAv1))
    return Status::of_field(Code::kUnsupported, field,
                            "codec " + std::string(name_of(output.codec)) + " cannot go in mpegts");
  if (container == "webm" &&
      (output.codec == VideoCodec::kH264 || output.codec == VideoCodec::kHevc))
    return Status::of_field(Code::kUnsupported, field,
                            "codec " + std::string(name_of(output.codec)) +
                                " cannot go in webm (it holds vp8, vp9 or av1 video)");
  return Status::ok();
}

}  // namespace

std::vector<std::string> choice_names(Choice choice) {
  switch (choice) {
    case Choice::kBackend:
      return names_in(kBackendNames);
    case Choice::kCodec:
      return names_in(kCodecNames);
    case Choice::kRateControl:
      return names_in(kRateControlNames);
    case Choice::kAudio:
      return names_in(kAudioNames);
    case Choice::kHdr:
      return names_in(kHdrNames);
    case Choice::kDeinterlace:
      return names_in(kDeinterlaceNames);
    case Choice::kPackage:
      return names_in(kPackageNames);
    case Choice::kSegmentFormat:
      return names_in(kSegmentFormatNames);
    case Choice::kContainer:
      return names_in(kContainerNames);
  }
  return {};
}

std::string_view name_of(BackendKind backend) {
  return name_in(kBackendNames, backend);
}
std::string_view name_of(VideoCodec codec) {
  return name_in(kCodecNames, codec);
}
std::string_view name_of(RateControl rate_control) {
  return name_in(kRateControlNames, rate_control);
}
std::string_view name_of(AudioMode audio) {
  return name_in(kAudioNames, audio);
}
std::string_view name_of(HdrMode hdr) {
  return name_in(kHdrNames, hdr);
}
std::string_view name_of(Deinterlace deinterlace) {
  return name_in(kDeinterlaceNames, deinterlace);
}
std::string_view name_of(PackageKind kind) {
  return name_in(kPackageNames, kind);
}
Result<PackageKind> parse_package_kind(std::string_view name) {
  return parse_in(kPackageNames, name, "package");
}
std::string_view name_of(SegmentFormat format) {
  return name_in(kSegmentFormatNames, format);
}
Result<SegmentFormat> parse_segment_format(std::string_view name) {
  return parse_in(kSegmentFormatNames, name, "segment format");
}
Result<HdrMode> parse_hdr(std::string_view name) {
  return parse_in(kHdrNames, name, "hdr mode");
}
Result<Deinterlace> parse_deinterlace(std::string_view name) {
  return parse_in(kDeinterlaceNames, name, "deinterlace mode");
}
Result<BackendKind> parse_backend(std::string_view name) {
  return parse_in(kBackendNames, name, "backend");
}
Result<VideoCodec> parse_codec(std::string_view name) {
  return parse_in(kCodecNames, name, "codec");
}
Result<RateControl> parse_rate_control(std::string_view name) {
  return parse_in(kRateControlNames, name, "rate control");
}
Result<AudioMode> parse_audio(std::string_view name) {
  return parse_in(kAudioNames, name, "audio mode");
}

Result<int64_t> parse_bitrate(std::string_view text) {
  double number = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
  std::string_view suffix(end, text.data() + text.size() - end);
  double scale = suffix.empty()                   ? 1
                 : suffix == "k" || suffix == "K" ? 1e3
                 : suffix == "m" || suffix == "M" ? 1e6
                                                  : 0;
  if (error != std::errc() || scale == 0 || number <= 0 || !std::isfinite(number))
    return invalid("bitrate " + quote_value(text) + " is not a number of bits/s (e.g. 4M, 800k)");
  return static_cast<int64_t>(std::llround(number * scale));
}

Status parse_size(std::string_view text, int& width, int& height) {
  auto bad = [&] {
    return invalid("size " + quote_value(text) + " is not WxH (e.g. 1280x720, 1280x0)");
  };
  auto x = text.find('x');
  if (x == std::string_view::npos) return bad();
  auto parse_side = [](std::string_view side, int& out) {
    auto [end, error] = std::from_chars(side.data(), side.data() + side.size(), out);
    return error == std::errc() && end == side.data() + side.size() && !side.empty();
  };
  if (!parse_side(text.substr(0, x), width) || !parse_side(text.substr(x + 1), height))
    return bad();
  return Status::ok();
}

Result<std::string> container_of(const OutputSpec& output) {
  std::string name = output.container.empty() ? lower_extension(output.path) : output.container;
  for (const ContainerNames& container : kContainerNames)
    if (name == container.name ||
        (!name.empty() && (name == container.also[0] || name == container.also[1])))
      return std::string(container.name);
  if (output.container.empty())
    return invalid(quote_value(output.path) + ": cannot tell the container from the extension " +
                   quote_value(name) + " (use .mp4, .mkv, .webm or .ts, or set the container)");
  return invalid("container " + quote_value(output.container) +
                 " is not one of mp4, mkv, webm, mpegts");
}

VideoCodec default_codec(const OutputSpec& output) {
  Result<std::string> container = container_of(output);
  return container.is_ok() && *container == "webm" ? VideoCodec::kVp9 : VideoCodec::kH264;
}

namespace {

Status validate_seconds(double seconds, const std::string& field) {
  // !(x >= 0) is also true for NaN.
  if (!(seconds >= 0) || !std::isfinite(seconds))
    return invalid(field, "must be a number of seconds >= 0");
  if (seconds > kMaxSpecSeconds)
    return invalid(field, std::to_string(seconds) + " s is more than " +
                              std::to_string(static_cast<long long>(kMaxSpecSeconds)) + " s");
  return Status::ok();
}

}  // namespace

int64_t seconds_to_us(double seconds) {
  if (!(seconds > 0)) return 0;
  // 1e12 s: far past any valid start + duration, far inside int64 microseconds (9.2e12 s).
  return static_cast<int64_t>(std::min(seconds, 1e12) * 1e6);
}

void normalize(JobSpec& spec) {
  normalize_package(spec);
  for (OutputSpec& output : spec.outputs) {
    if (output.rate_control != RateControl::kDefault) continue;
    if (output.bitrate > 0)
      output.rate_control = RateControl::kVbr;
    else if (output.quality >= 0)
      output.rate_control = RateControl::kQuality;
  }
}

std::vector<TextField> text_fields(const JobSpec& spec) {
  std::vector<TextField> fields = {{spec.input, kMaxTextPathBytes, "input"},
                                   {spec.device, kMaxTextNameBytes, "device"}};
  for (size_t i = 0; i < spec.outputs.size(); ++i) {
    const OutputSpec& o = spec.outputs[i];
    std::string field = "outputs[" + std::to_string(i) + "]";
    fields.push_back({o.path, kMaxTextPathBytes, field + ".path"});
    fields.push_back({o.container, kMaxTextNameBytes, field + ".container"});
    fields.push_back({o.preset, kMaxTextNameBytes, field + ".preset"});
    for (const std::string& language : o.audio_tracks.languages)
      fields.push_back({language, kMaxTextNameBytes, field + ".audio_tracks"});
  }
  fields.push_back({spec.package.dir, kMaxTextPathBytes, "package.dir"});
  fields.push_back({spec.package.segment_name, kMaxTextNameBytes, "package.segment_name"});
  return fields;
}

Status validate(const JobSpec& spec, const SpecLimits& limits) {
  // Every string first: no later check or message handles a NUL byte, invalid UTF-8 or megabytes.
  for (const TextField& text : text_fields(spec))
    TC_RETURN_IF_ERROR(check_text(text.value, text.max_bytes, text.field));
  if (spec.input.empty()) return invalid("input", "missing");
  if (spec.outputs.empty()) return invalid("outputs", "a job needs at least one output");
  if (static_cast<int>(spec.outputs.size()) > limits.max_outputs)
    return invalid("outputs", std::to_string(spec.outputs.size()) + " outputs, at most " +
                                  std::to_string(limits.max_outputs) + " allowed");
  TC_RETURN_IF_ERROR(validate_seconds(spec.start_s, "start_s"));
  TC_RETURN_IF_ERROR(validate_seconds(spec.duration_s, "duration_s"));
  if (spec.gop_parallel < 0 || spec.gop_parallel > kMaxGopParallel)
    return invalid("gop_parallel", std::to_string(spec.gop_parallel) + " is outside 0.." +
                                       std::to_string(kMaxGopParallel));
  for (size_t i = 0; i < spec.outputs.size(); ++i) {
    TC_RETURN_IF_ERROR(
        validate_output(spec.outputs[i], "outputs[" + std::to_string(i) + "]", limits.max_side));
    for (size_t j = 0; j < i; ++j)
      if (spec.outputs[j].path == spec.outputs[i].path)
        return invalid(
            "outputs[" + std::to_string(i) + "].path",
            quote_value(spec.outputs[i].path) + " is also outputs[" + std::to_string(j) + "]");
    if (spec.outputs[i].path == spec.input)
      return invalid("outputs[" + std::to_string(i) + "].path", "would overwrite the input");
  }
  TC_RETURN_IF_ERROR(validate_thumbnails(spec));
  return validate_package(spec);
}

// JSON: snake_case keys, enums as their lowercase names, missing keys keep their defaults.
namespace {

using nlohmann::json;

template <typename T>
Status read_field(JsonFields& object, const char* key, T& out, const std::string& where) {
  TC_ASSIGN_OR_RETURN(const json* it, object.find(key));
  if (it == nullptr) return Status::ok();
  try {
    // protobuf's JSON mapping writes 64-bit integers as strings: accept both.
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
      if (it->is_string()) {
        const std::string& digits = it->get_ref<const std::string&>();
        auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
        if (error != std::errc() || end != digits.data() + digits.size())
          return invalid(where + key, quote_value(digits) + " is not an integer");
        return Status::ok();
      }
    out = it->get<T>();
  } catch (const json::exception&) {
    return invalid(where + key, "wrong type (" + std::string(it->type_name()) + ")");
  }
  return Status::ok();
}

template <typename Enum>
Status read_enum(JsonFields& object, const char* key, Enum& out, const std::string& where,
                 Result<Enum> (*parse)(std::string_view)) {
  std::string name;
  TC_RETURN_IF_ERROR(read_field(object, key, name, where));
  if (name.empty()) return Status::ok();
  Result<Enum> value = parse(name);
  if (!value.is_ok()) return invalid(where + key, value.status().message());
  out = *value;
  return Status::ok();
}

Result<OutputSpec> output_from_json(const json& value, const std::string& where) {
  if (!value.is_object()) return invalid(where, "must be an object");
  JsonFields object(value, where + ".");
  OutputSpec output;
  TC_RETURN_IF_ERROR(read_field(object, "path", output.path, where + "."));
  TC_RETURN_IF_ERROR(read_field(object, "container", output.container, where + "."));
  output.codec = default_codec(output);
  TC_RETURN_IF_ERROR(read_enum(object, "codec", output.codec, where + ".", parse_codec));
  TC_RETURN_IF_ERROR(read_field(object, "width", output.width, where + "."));
  TC_RETURN_IF_ERROR(read_field(object, "height", output.height, where + "."));
  // "fps": "30000/1001", or a whole number.
  TC_ASSIGN_OR_RETURN(const json* fps, object.find("fps"));
  if (fps && fps->is_number_integer())
    output.fps = {int(std::clamp<int64_t>(fps->get<int64_t>(), -1, kMaxFrameRate + 1)), 1};
  else
    TC_RETURN_IF_ERROR(read_enum(object, "fps", output.fps, where + ".", parse_frame_rate));
  TC_RETURN_IF_ERROR(
      read_enum(object, "rate_control", output.rate_control, where + ".", parse_rate_control));
  TC_RETURN_IF_ERROR(read_field(object, "quality", output.quality, where + "."));
  TC_RETURN_IF_ERROR(read_field(object, "bitrate", output.bitrate, where + "."));
  TC_RETURN_IF_ERROR(read_field(object, "gop", output.gop, where + "."));
  TC_RETURN_IF_ERROR(read_field(object, "b_frames", output.b_frames, where + "."));
  TC_RETURN_IF_ERROR(read_field(object, "preset", output.preset, where + "."));
  TC_RETURN_IF_ERROR(read_enum(object, "audio", output.audio, where + ".", parse_audio));
  TC_RETURN_IF_ERROR(read_field(object, "audio_bitrate", output.audio_bitrate, where + "."));
  TC_RETURN_IF_ERROR(read_field(object, "audio_channels", output.audio_channels, where + "."));
  TC_RETURN_IF_ERROR(read_field(object, "audio_rate", output.audio_rate, where + "."));
  TC_RETURN_IF_ERROR(
      read_enum(object, "audio_tracks", output.audio_tracks, where + ".", parse_audio_tracks));
  TC_RETURN_IF_ERROR(
      read_enum(object, "subtitles", output.subtitles, where + ".", parse_subtitles));
  TC_RETURN_IF_ERROR(read_enum(object, "hdr", output.hdr, where + ".", parse_hdr));
  TC_RETURN_IF_ERROR(read_enum(object, "loudnorm", output.loudnorm, where + ".", parse_loudnorm));
  TC_RETURN_IF_ERROR(object.unknown_keys());
  return output;
}

Status package_from_json(JsonFields& root, PackageSpec& package) {
  TC_ASSIGN_OR_RETURN(const json* it, root.find("package"));
  if (it == nullptr) return Status::ok();
  if (!it->is_object()) return invalid("package", "must be an object");
  JsonFields fields(*it, "package.");
  TC_RETURN_IF_ERROR(read_enum(fields, "kind", package.kind, "package.", parse_package_kind));
  TC_RETURN_IF_ERROR(read_field(fields, "dir", package.dir, "package."));
  TC_RETURN_IF_ERROR(read_field(fields, "segment_s", package.segment_s, "package."));
  TC_RETURN_IF_ERROR(read_enum(fields, "segment_format", package.segment_format, "package.",
                               parse_segment_format));
  TC_RETURN_IF_ERROR(read_field(fields, "segment_name", package.segment_name, "package."));
  TC_RETURN_IF_ERROR(read_field(fields, "stereo_audio", package.stereo_audio, "package."));
  return fields.unknown_keys();
}

// Present (even as {}) turns thumbnails on; the keys left out keep their defaults.
Status thumbnails_from_json(JsonFields& root, ThumbnailSpec& thumbnails) {
  TC_ASSIGN_OR_RETURN(const json* it, root.find("thumbnails"));
  if (it == nullptr) return Status::ok();
  if (!it->is_object()) return invalid("thumbnails", "must be an object");
  thumbnails.on = true;
  JsonFields fields(*it, "thumbnails.");
  TC_RETURN_IF_ERROR(read_field(fields, "interval_s", thumbnails.interval_s, "thumbnails."));
  TC_RETURN_IF_ERROR(read_field(fields, "width", thumbnails.width, "thumbnails."));
  TC_RETURN_IF_ERROR(read_field(fields, "height", thumbnails.height, "thumbnails."));
  TC_RETURN_IF_ERROR(read_field(fields, "columns", thumbnails.columns, "thumbnails."));
  TC_RETURN_IF_ERROR(read_field(fields, "rows", thumbnails.rows, "thumbnails."));
  return fields.unknown_keys();
}

}  // namespace

Result<JobSpec> job_spec_from_json(std::string_view text) {
  json root = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) return invalid("job: not valid JSON");
  return job_spec_from_json_value(root);
}

Result<JobSpec> job_spec_from_json_value(const nlohmann::json& value) {
  if (!value.is_object()) return invalid("job: must be a JSON object");
  JsonFields root(value, "");
  JobSpec spec;
  TC_RETURN_IF_ERROR(read_field(root, "input", spec.input, ""));
  TC_RETURN_IF_ERROR(read_field(root, "start_s", spec.start_s, ""));
  TC_RETURN_IF_ERROR(read_field(root, "duration_s", spec.duration_s, ""));
  TC_RETURN_IF_ERROR(read_enum(root, "backend", spec.backend, "", parse_backend));
  TC_RETURN_IF_ERROR(read_field(root, "device", spec.device, ""));
  TC_RETURN_IF_ERROR(read_enum(root, "deinterlace", spec.deinterlace, "", parse_deinterlace));
  TC_RETURN_IF_ERROR(
      read_enum(root, "quality_metrics", spec.quality_metrics, "", parse_quality_metrics));
  TC_RETURN_IF_ERROR(package_from_json(root, spec.package));
  TC_RETURN_IF_ERROR(thumbnails_from_json(root, spec.thumbnails));
  TC_RETURN_IF_ERROR(read_field(root, "gop_parallel", spec.gop_parallel, ""));
  TC_RETURN_IF_ERROR(read_field(root, "verbose_log", spec.verbose_log, ""));
  TC_ASSIGN_OR_RETURN(const json* outputs, root.find("outputs"));
  if (outputs && !outputs->is_array()) return invalid("outputs", "must be an array");
  if (outputs)
    for (size_t i = 0; i < outputs->size(); ++i) {
      TC_ASSIGN_OR_RETURN(OutputSpec output,
                          output_from_json((*outputs)[i], "outputs[" + std::to_string(i) + "]"));
      spec.outputs.push_back(std::move(output));
    }
  TC_RETURN_IF_ERROR(root.unknown_keys());
  normalize(spec);
  return spec;
}

std::string job_spec_to_json(const JobSpec& spec) {
  // One line (newlines in strings are escaped): the worker reads its job as its stdin's first.
  return job_spec_json_value(spec).dump();
}

nlohmann::json job_spec_json_value(const JobSpec& spec) {
  json outputs = json::array();
  for (const OutputSpec& output : spec.outputs)
    outputs.push_back({{"path", output.path},
                       {"container", output.container},
                       {"codec", name_of(output.codec)},
                       {"width", output.width},
                       {"height", output.height},
                       {"rate_control", name_of(output.rate_control)},
                       {"quality", output.quality},
                       {"bitrate", output.bitrate},
                       {"gop", output.gop},
                       {"b_frames", output.b_frames},
                       {"preset", output.preset},
                       {"audio", name_of(output.audio)},
                       {"audio_bitrate", output.audio_bitrate},
                       {"audio_channels", output.audio_channels},
                       {"audio_rate", output.audio_rate},
                       {"audio_tracks", name_of(output.audio_tracks)},
                       {"subtitles", name_of(output.subtitles)},
                       {"hdr", name_of(output.hdr)},
                       {"loudnorm", name_of(output.loudnorm)}});
  for (size_t i = 0; i < spec.outputs.size(); ++i)
    if (spec.outputs[i].fps.set()) outputs[i]["fps"] = frame_rate_text(spec.outputs[i].fps);
  json root = {{"input", spec.input},           {"start_s", spec.start_s},
               {"duration_s", spec.duration_s}, {"backend", name_of(spec.backend)},
               {"device", spec.device},         {"outputs", outputs}};
  root["deinterlace"] = name_of(spec.deinterlace);
  root["quality_metrics"] = name_of(spec.quality_metrics);
  root["gop_parallel"] = spec.gop_parallel;
  // Written only when on, so that the JSON of every other job stays as it was.
  if (spec.verbose_log) root["verbose_log"] = true;
  if (spec.package.on())
    root["package"] = {{"kind", name_of(spec.package.kind)},
                       {"dir", spec.package.dir},
                       {"segment_s", spec.package.segment_s},
                       {"segment_name", spec.package.segment_name},
                       {"segment_format", name_of(spec.package.segment_format)}};
  // Written only when off, so that the JSON of every other package job stays as it was.
  if (spec.package.on() && !spec.package.stereo_audio) root["package"]["stereo_audio"] = false;
  if (spec.thumbnails.on)
    root["thumbnails"] = {{"interval_s", spec.thumbnails.interval_s},
                          {"width", spec.thumbnails.width},
                          {"height", spec.thumbnails.height},
                          {"columns", spec.thumbnails.columns},
                          {"rows", spec.thumbnails.rows}};
  return root;
}

}  // namespace tc
