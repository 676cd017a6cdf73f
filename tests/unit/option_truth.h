// Checks a plan against this FFmpeg build's AVOption tables, as avcodec_open2 and
// avfilter_init_str will: every option the plan gives an encoder, and every named option of a
// device filter (*_vaapi, *_cuda, *_vulkan, hwupload) in the video graph, must exist there, or
// the job fails at open on a GPU we do not have here. Nothing is opened.
#pragma once

#include <string>
#include <vector>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavfilter/avfilter.h>
#include <libavutil/opt.h>
}

#include "pipeline/plan/plan.h"

namespace tc::testing {

// What a check found: options that do not exist, and pieces not in this build (skipped).
struct OptionTruth {
  std::vector<std::string> missing;    // "vp9_vaapi: qp"
  std::vector<std::string> not_built;  // "av1_vaapi"
};

inline bool class_has(const AVClass* cls, const std::string& name) {
  return cls && av_opt_find(&cls, name.c_str(), nullptr, 0, AV_OPT_SEARCH_FAKE_OBJ) != nullptr;
}

inline void check_encoder(const VideoEncodePlan& video, OptionTruth& truth) {
  const AVCodec* codec = avcodec_find_encoder_by_name(video.encoder.c_str());
  if (!codec) {
    truth.not_built.push_back(video.encoder);
    return;
  }
  for (const auto& [name, value] : video.options) {
    // avcodec_open2 sets the generic AVCodecContext options first, the private ones after.
    if (!class_has(avcodec_get_class(), name) && !class_has(codec->priv_class, name))
      truth.missing.push_back(video.encoder + ": " + name);
  }
}

inline bool is_device_filter(const std::string& name) {
  for (const char* suffix : {"_vaapi", "_cuda", "_vulkan"})
    if (name.ends_with(suffix)) return true;
  return name == "hwupload";
}

inline std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t at = text.find(separator); at != std::string::npos;
       start = at + 1, at = text.find(separator, start))
    parts.push_back(text.substr(start, at - start));
  parts.push_back(text.substr(start));
  return parts;
}

// "[v0]scale_vaapi=w=1280:h=720[out0]" -> "scale_vaapi=w=1280:h=720"
inline std::string without_labels(std::string filter) {
  while (filter.starts_with('[')) filter.erase(0, filter.find(']') + 1);
  size_t label = filter.find('[');
  return label == std::string::npos ? filter : filter.substr(0, label);
}

inline void check_filter(const std::string& text, OptionTruth& truth) {
  std::string filter = without_labels(text);
  size_t equals = filter.find('=');
  std::string name = filter.substr(0, equals);
  if (!is_device_filter(name)) return;
  const AVFilter* found = avfilter_get_by_name(name.c_str());
  if (!found) {
    truth.not_built.push_back(name);
    return;
  }
  if (equals == std::string::npos) return;
  for (const std::string& argument : split(filter.substr(equals + 1), ':')) {
    size_t key_end = argument.find('=');
    if (key_end == std::string::npos) continue;  // positional: no name to check
    std::string key = argument.substr(0, key_end);
    // extra_hw_frames and the like are every filter's (AVFilterContext's class).
    if (!class_has(found->priv_class, key) && !class_has(avfilter_get_class(), key))
      truth.missing.push_back(name + ": " + key);
  }
}

inline OptionTruth check_option_truth(const Plan& plan) {
  OptionTruth truth;
  for (const OutputPlan& output : plan.outputs)
    if (!output.video_copy) check_encoder(output.video, truth);
  for (const std::string& chain : split(plan.video_graph.text, ';'))
    for (const std::string& filter : split(chain, ',')) check_filter(filter, truth);
  return truth;
}

}  // namespace tc::testing
