#include "pipeline/plan/package_plan.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "pipeline/hw/backends.h"
#include "pipeline/plan/segment_container.h"
#include "pipeline/plan/stages.h"
#include "pipeline/plan/stereo_rendition.h"
#include "pipeline/plan/text_plan.h"

namespace tc {
namespace {

// The frame rate the GOP is counted in: the probe's, else the common 25.
double rate_of(const VideoInfo& video) {
  return video.frame_rate.num > 0 && video.frame_rate.den > 0 ? av_q2d(video.frame_rate) : 25;
}

void append_param(Options& options, const std::string& key, const std::string& params) {
  for (auto& [name, value] : options)
    if (name == key) {
      value += ":" + params;
      return;
    }
  options.emplace_back(key, params);
}

// A rendition's files in the package, as --dry-run shows them.
std::string rendition_files(const PackagePlan& package) {
  const package::SegmentContainer& container = package::segment_container(package.segment_format);
  std::string files = package.segment_name + container.extension;
  return container.has_init() ? std::string(container.init_name) + " + " + files : files;
}

}  // namespace

void plan_segment_keyframes(int gop, int64_t interval_us, VideoEncodePlan& video) {
  video.gop = gop;
  video.keyframe_interval_us = interval_us;
  Options& options = video.options;
  const KeyframeOptions& keyframes = keyframe_options(video.device.backend, video.codec);
  for (const OptionValue& option : keyframes.options)
    if (!option.name.empty()) options.emplace_back(option.name, option.value);
  if (keyframes.keyint_min) options.emplace_back("keyint_min", std::to_string(gop));
  if (!keyframes.params.empty())
    append_param(options, std::string(software_encoder(video.codec).params_option),
                 std::string(keyframes.params));
}

void plan_package(const JobSpec& spec, const VideoInfo& video, Plan& plan) {
  PackagePlan& package = plan.package;
  package.kind = spec.package.kind;
  package.dir = spec.package.dir;
  package.segment_s = spec.package.segment_s;
  package.segment_name = spec.package.segment_name;
  package.segment_format = spec.package.segment_format;
  package.frame_rate = rate_of(video);
  package.gop = std::max(1, int(std::lround(package.segment_s * package.frame_rate)));
  int64_t interval_us = seconds_to_us(package.segment_s);
  for (OutputPlan& output : plan.outputs) {
    output.mux_options.clear();
    // A rendition with its own --fps counts its GOP in that rate; the forced keyframes are by
    // time, so every rendition's segments stay aligned either way.
    int gop = package.gop;
    if (output.video.frame_rate.num > 0 && output.video.frame_rate.den > 0)
      gop = std::max(1, int(std::lround(package.segment_s * av_q2d(output.video.frame_rate))));
    plan_segment_keyframes(gop, interval_us, output.video);
  }
}

std::string describe_package(const Plan& plan) {
  const PackagePlan& package = plan.package;
  if (!package.on()) return "";
  std::ostringstream text;
  text << "package: " << name_of(package.kind) << " into " << package.dir << "/, "
       << segments_text(package.segment_format) << " of " << package.segment_s << " s\n";
  text << "segment GOP: " << package.gop << " frames at " << package.frame_rate
       << " fps; keyframes forced by time at every " << package.segment_s
       << " s on every rendition (IDR, closed GOP, no scene-cut keyframes)\n";
  for (const OutputPlan& output : plan.outputs)
    text << "rendition " << output.path << ": " << output.width << "x" << output.height << " "
         << output.video.encoder << ", " << package.dir << "/" << output.path << "/"
         << rendition_files(package) << "\n";
  for (const AudioPlan& audio :
       plan.outputs.empty() ? std::vector<AudioPlan>{} : plan.outputs[0].audio)
    text << "audio rendition: input stream #" << audio.input_stream << " " << audio.encoder
         << (audio.stereo_rendition ? " stereo" : "") << " into " << package.dir << "/"
         << audio_rendition_name(audio.input_stream, audio.stereo_rendition) << "/\n";
  text << describe_text_renditions(plan);
  return text.str();
}

}  // namespace tc
