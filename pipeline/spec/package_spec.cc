#include "pipeline/spec/package_spec.h"

#include <cmath>
#include <cstdio>

#include "pipeline/core/user_text.h"

namespace tc {
namespace {

constexpr std::string_view kNumberMark = "{n}";

Status invalid(std::string field, const std::string& problem) {
  return Status::of_field(Code::kInvalidArgument, std::move(field), problem);
}

// A name that stays one directory entry: no separators, no hidden or relative names.
bool plain_name(const std::string& name) {
  if (name.empty() || name.size() > 64 || name[0] == '.') return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.')
      return false;
  return true;
}

Status validate_rendition(const OutputSpec& output, const std::string& field) {
  if (!plain_name(output.path))
    return invalid(field + ".path", quote_value(output.path) +
                                        " is not a rendition name (letters, digits, '_', '-', "
                                        "'.'; it names the rendition's directory in the package)");
  if (output.codec == VideoCodec::kCopy)
    return invalid(field + ".codec",
                   "copy cannot be packaged: keyframes are forced at segment boundaries, so "
                   "every rendition is encoded (h264, hevc or av1)");
  if (output.codec == VideoCodec::kVp9)
    return invalid(field + ".codec",
                   "vp9 cannot be packaged: HLS players take CMAF h264, hevc or av1");
  return Status::ok();
}

// MPEG-TS segments are HLS's older form: the MPD and CMAF take fMP4 only, and TS carries H.264
// to the clients that need it (Apple's HLS authoring spec puts HEVC in fMP4; AV1 has no TS
// mapping players read).
Status validate_ts_segments(const JobSpec& spec) {
  if (spec.package.segment_format != SegmentFormat::kTs) return Status::ok();
  if (spec.package.kind != PackageKind::kHls)
    return invalid("package.segment_format",
                   "ts segments are for hls only: " + std::string(name_of(spec.package.kind)) +
                       " needs fmp4 segments");
  for (size_t i = 0; i < spec.outputs.size(); ++i)
    if (spec.outputs[i].codec != VideoCodec::kH264)
      return invalid("outputs[" + std::to_string(i) + "].codec",
                     std::string(name_of(spec.outputs[i].codec)) +
                         " cannot be carried in ts segments (h264 only; use fmp4 segments)");
  return Status::ok();
}

}  // namespace

void normalize_package(JobSpec& spec) {
  if (!spec.package.on()) return;
  for (size_t i = 0; i < spec.outputs.size(); ++i) {
    OutputSpec& output = spec.outputs[i];
    output.container = "mp4";
    // The audio and subtitle renditions are written once, from the first output's encoders.
    if (i > 0) output.subtitles = SubtitleMode::kNone;
    if (i > 0 || output.audio == AudioMode::kNone)
      output.audio = AudioMode::kNone;
    else
      output.audio = AudioMode::kAac;
  }
}

Status validate_package(const JobSpec& spec) {
  const PackageSpec& package = spec.package;
  if (!package.on()) return Status::ok();
  if (package.dir.empty() || package.dir == "/")
    return invalid("package.dir", "missing (the directory the package is published as)");
  if (!(package.segment_s > 0) || !std::isfinite(package.segment_s))
    return invalid("package.segment_s", "must be a positive number of seconds");
  if (package.segment_s > kMaxSegmentSeconds)
    return invalid("package.segment_s",
                   "at most " + std::to_string(int(kMaxSegmentSeconds)) + " seconds");
  const std::string& name = package.segment_name;
  size_t mark = name.find(kNumberMark);
  std::string rest = mark == std::string::npos
                         ? name
                         : name.substr(0, mark) + name.substr(mark + kNumberMark.size());
  if (mark == std::string::npos || rest.find(kNumberMark) != std::string::npos ||
      !plain_name(rest.empty() ? "n" : rest))
    return invalid("package.segment_name", quote_value(name) +
                                               " must hold {n} once, and otherwise letters, "
                                               "digits, '_', '-' or '.'");
  for (size_t i = 0; i < spec.outputs.size(); ++i) {
    std::string field = "outputs[" + std::to_string(i) + "]";
    TC_RETURN_IF_ERROR(validate_rendition(spec.outputs[i], field));
    if (spec.outputs[i].path.rfind("audio", 0) == 0)
      return invalid(field + ".path", "names starting with 'audio' are the audio renditions'");
    if (spec.outputs[i].path.rfind("subs_", 0) == 0)
      return invalid(field + ".path", "names starting with 'subs_' are the subtitle renditions'");
  }
  return validate_ts_segments(spec);
}

std::string segment_file_name(const std::string& name_template, int number) {
  char digits[16];
  std::snprintf(digits, sizeof digits, "%05d", number);
  std::string name = name_template;
  size_t mark = name.find(kNumberMark);
  if (mark != std::string::npos) name.replace(mark, kNumberMark.size(), digits);
  return name;
}

}  // namespace tc
