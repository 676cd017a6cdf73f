// Hand-made inputs and devices for plan tests: what probe() and discover_devices() would return.
#pragma once

#include <memory>
#include <stdexcept>
#include <utility>

extern "C" {
#include <libavcodec/avcodec.h>
}

#include "pipeline/core/status.h"
#include "pipeline/hw/devices.h"
#include "pipeline/plan/plan.h"
#include "pipeline/plan/stages.h"
#include "pipeline/probe/media_info.h"
#include "pipeline/spec/job_spec.h"

namespace tc::testing {

// The value of `result`, or the test stops here. A helper that returns a value cannot use ASSERT_*
// (they return void), and going on with a stand-in value or reading an error's value crashes the
// whole test binary; gtest reports this exception, with the status, as the test's failure and
// runs the next test.
template <typename T>
T value_or_stop(Result<T> result) {
  if (!result.is_ok()) throw std::runtime_error("not ok: " + result.status().to_string());
  return std::move(result).value();
}

inline MediaInfo media(AVCodecID codec = AV_CODEC_ID_H264, int width = 1920, int height = 1080,
                       int bit_depth = 8) {
  MediaInfo info;
  info.path = "in.mp4";
  info.format_name = "mov,mp4,m4a,3gp,3g2,mj2";
  info.duration_s = 10;
  VideoInfo video;
  video.stream_index = 0;
  video.codec = codec;
  video.codec_name = avcodec_get_name(codec);
  video.width = width;
  video.height = height;
  video.frame_rate = {30, 1};
  video.time_base = {1, 15360};
  video.bit_depth = bit_depth;
  video.pix_fmt = bit_depth > 8 ? AV_PIX_FMT_YUV420P10LE : AV_PIX_FMT_YUV420P;
  info.video = video;
  AudioInfo audio;
  audio.stream_index = 1;
  audio.codec = AV_CODEC_ID_AAC;
  audio.codec_name = "aac";
  audio.sample_rate = 48000;
  audio.channels = 2;
  info.audio.push_back(audio);
  return info;
}

// A Tiger Lake-like iGPU: decodes H.264, HEVC 10-bit, VP9 and AV1; encodes H.264 and HEVC with
// both entrypoints; no VP9 or AV1 encode.
inline HwDevice intel_gpu(const std::string& path = "/dev/dri/renderD128") {
  HwDevice device;
  device.backend = BackendKind::kVaapi;
  device.path = path;
  device.driver = "i915";
  device.vendor = "Intel iHD driver";
  device.decode = {
      {AV_CODEC_ID_H264, 8}, {AV_CODEC_ID_HEVC, 10}, {AV_CODEC_ID_VP9, 10}, {AV_CODEC_ID_AV1, 10}};
  device.encode = {{AV_CODEC_ID_H264, {true, true}}, {AV_CODEC_ID_HEVC, {true, true}}};
  device.can_scale = true;
  return device;
}

// Mesa's CPU Vulkan driver, as discovery sees it: scales, neither decodes nor encodes.
inline HwDevice lavapipe() {
  HwDevice device;
  device.backend = BackendKind::kVulkan;
  device.path = "0";
  device.driver = "vulkan";
  device.can_scale = true;
  return device;
}

// Whether this FFmpeg has QSV at all (Debian's links libmfx; a build without it plans nothing).
inline bool qsv_built() {
  return avcodec_find_encoder_by_name("h264_qsv") && avcodec_find_decoder_by_name("h264_qsv");
}

inline HwInventory inventory(std::vector<HwDevice> devices) {
  HwInventory inventory;
  inventory.devices = std::move(devices);
  return inventory;
}

inline JobSpec job(std::vector<OutputSpec> outputs, BackendKind backend = BackendKind::kAuto) {
  JobSpec spec;
  spec.input = "in.mp4";
  spec.backend = backend;
  spec.outputs = std::move(outputs);
  return spec;
}

inline OutputSpec output(const std::string& path, int width = 0, int height = 0,
                         VideoCodec codec = VideoCodec::kH264) {
  OutputSpec spec;
  spec.path = path;
  spec.width = width;
  spec.height = height;
  spec.codec = codec;
  return spec;
}

// How many times `what` occurs in `text` (a plan's graph text), overlapping ones included.
inline int occurrences(const std::string& text, const std::string& what) {
  int found = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++found;
  return found;
}

// The outputs that download their frames themselves with `filters` ("hwdownload,format=nv12" in
// the ffmpeg CLI's terms), on their own threads, not in the graph.
inline int output_downloads(const FilterGraphPlan& graph, const std::string& filters) {
  int found = 0;
  for (const GraphSink& sink : graph.sinks) found += sink.download_at_output == filters;
  return found;
}

// The plan's stage called `name` ("encode out0"), as render_stages gives it; null if it has none.
inline std::unique_ptr<Stage> stage(const Plan& plan, const std::string& name) {
  for (Stage& stage : render_stages(plan))
    if (stage.name == name) return std::make_unique<Stage>(std::move(stage));
  return nullptr;
}

}  // namespace tc::testing
