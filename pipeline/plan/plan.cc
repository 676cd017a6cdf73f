#include "pipeline/plan/plan.h"

#include <algorithm>
#include <cmath>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/pixdesc.h>
}

#include "pipeline/core/compat.h"
#include "pipeline/hw/backends.h"
#include "pipeline/plan/graph_builder.h"

namespace tc {
namespace {

// VA-API encoders keep async_depth frames in flight (default 2 in FFmpeg 5.1) plus the B-frame
// reorder window; their surfaces come from the pool of the scale filter that feeds them.
constexpr int kVaapiAsyncDepth = 2;
constexpr int kVaapiDefaultBFrames = 2;
// Frames a filter graph can queue per branch between our pushes and pulls.
constexpr int kGraphSlack = 2;
constexpr std::string_view kSoftwarePreset = "veryfast";

struct Size {
  int width = 0;
  int height = 0;
  bool operator==(const Size&) const = default;
  bool fits_in(const Size& other) const { return width <= other.width && height <= other.height; }
  int64_t area() const { return int64_t(width) * height; }
};

int occurrences(std::string_view text, std::string_view needle) {
  int count = 0;
  for (size_t at = text.find(needle); at != std::string_view::npos; at = text.find(needle, at + 1))
    ++count;
  return count;
}

int even(double value) {
  return std::max(2, 2 * int(std::lround(value / 2)));
}

// One side 0 keeps the source's aspect ratio; both 0 keeps the source size (made even).
Size target_size(const OutputSpec& output, const VideoInfo& video) {
  if (output.width && output.height) return {output.width, output.height};
  if (output.width) return {output.width, even(double(video.height) * output.width / video.width)};
  if (output.height)
    return {even(double(video.width) * output.height / video.height), output.height};
  return {video.width & ~1, video.height & ~1};
}

std::string muxer_of(const std::string& container) {
  if (container == "mkv") return "matroska";
  return container;  // "mp4", "mpegts"
}

bool encoder_exists(std::string_view name) {
  return !name.empty() && avcodec_find_encoder_by_name(std::string(name).c_str()) != nullptr;
}

bool decoder_outputs_device_frames(AVCodecID codec, AVHWDeviceType type) {
  const AVCodec* decoder = avcodec_find_decoder(codec);
  if (!decoder) return false;
  for (int i = 0;; ++i) {
    const AVCodecHWConfig* config = avcodec_get_hw_config(decoder, i);
    if (!config) return false;
    if (config->device_type == type && (config->methods & AV_CODEC_HW_CONFIG_METHOD_HW_DEVICE_CTX))
      return true;
  }
}

bool encoder_takes(std::string_view encoder, AVPixelFormat format) {
  const AVCodec* codec = avcodec_find_encoder_by_name(std::string(encoder).c_str());
  const AVPixelFormat* formats = av::encoder_pixel_formats(codec);
  if (!formats) return false;
  for (const AVPixelFormat* f = formats; *f != AV_PIX_FMT_NONE; ++f)
    if (*f == format) return true;
  return false;
}

std::string device_problems(const HwInventory& devices, BackendKind backend) {
  std::string text;
  auto add = [&](const std::string& line) { text += (text.empty() ? "" : "; ") + line; };
  for (const HwDevice& device : devices.devices)
    if (device.backend == backend && !device.usable())
      add(device.path + ": " + device.unusable_reason);
  for (const std::string& note : devices.notes) add(note);
  return text.empty() ? "none found" : text;
}

struct BackendChoice {
  BackendKind kind = BackendKind::kSoftware;
  const HwDevice* device = nullptr;
  std::string reason;
};

Result<BackendChoice> choose_backend(const JobSpec& spec, const HwInventory& devices) {
  if (spec.backend == BackendKind::kSoftware) return BackendChoice{.reason = "requested"};
  if (spec.backend == BackendKind::kAuto) {
    const HwDevice* gpu = devices.find(BackendKind::kVaapi, spec.device);
    if (gpu && gpu->can_scale)
      return BackendChoice{BackendKind::kVaapi, gpu,
                           "auto: Intel GPU " + gpu->path + " (" + gpu->driver + ")"};
    return BackendChoice{.reason = "auto: no usable Intel GPU (" +
                                   device_problems(devices, BackendKind::kVaapi) +
                                   "), so software"};
  }
  const HwDevice* device = devices.find(spec.backend, spec.device);
  std::string name(name_of(spec.backend));
  if (!device) {
    std::string what = spec.backend == BackendKind::kVaapi ? "no usable Intel GPU render node"
                                                           : "no usable " + name + " device";
    return Status(Code::kDevice, "--backend " + name + ": " + what +
                                     (spec.device.empty() ? "" : " at " + spec.device) + " (" +
                                     device_problems(devices, spec.backend) +
                                     "); --backend auto would fall back to software");
  }
  if (!device->can_scale)
    return Status(Code::kDevice, "--backend " + name + ": " + device->path +
                                     " cannot scale (no video processing entrypoint)");
  return BackendChoice{spec.backend, device, "requested"};
}

StageDevice stage_device(const BackendChoice& choice) {
  if (!choice.device) return {};
  return {choice.kind, choice.device->path, choice.device->driver};
}

// CBR pins rate, peak and buffer together; VBR allows 1.5x peaks over a 2x buffer.
void apply_bitrate(const OutputSpec& output, VideoEncodePlan& plan) {
  if (output.rate_control == RateControl::kCbr)
    plan.bit_rate = plan.max_rate = plan.buffer_size = output.bitrate;
  if (output.rate_control == RateControl::kVbr) {
    plan.bit_rate = output.bitrate;
    plan.max_rate = output.bitrate * 3 / 2;
    plan.buffer_size = output.bitrate * 2;
  }
}

Options software_rate_control(const OutputSpec& output, const std::string& encoder,
                              VideoEncodePlan& plan) {
  Options options;
  apply_bitrate(output, plan);
  bool x26x = encoder == "libx264" || encoder == "libx265";
  bool constant_quality =
      output.rate_control == RateControl::kDefault || output.rate_control == RateControl::kQuality;
  if (constant_quality) {
    int default_crf = encoder == "libsvtav1" ? 35 : x26x ? 23 : 32;
    options.emplace_back("crf", std::to_string(output.quality >= 0 ? output.quality : default_crf));
  }
  if (encoder == "libsvtav1" && !constant_quality)
    options.emplace_back("rc", output.rate_control == RateControl::kCbr ? "2" : "1");
  if (encoder == "libx264" && output.rate_control == RateControl::kCbr)
    options.emplace_back("nal-hrd", "cbr");
  if (encoder == "libvpx-vp9") {
    options.emplace_back("deadline", "realtime");
    options.emplace_back("cpu-used", output.preset.empty() ? "8" : output.preset);
    options.emplace_back("row-mt", "1");
  } else if (encoder == "libsvtav1") {
    options.emplace_back("preset", output.preset.empty() ? "10" : output.preset);
  } else {
    options.emplace_back("preset",
                         output.preset.empty() ? std::string(kSoftwarePreset) : output.preset);
  }
  if (encoder == "libx265") options.emplace_back("x265-params", "log-level=error");
  return options;
}

// How a hardware encoder names its rate-control modes.
struct HwRateModes {
  const char* option;
  const char* quality;
  const char* cbr;
  const char* vbr;
};
constexpr HwRateModes kVaapiModes{"rc_mode", "CQP", "CBR", "VBR"};
constexpr HwRateModes kNvencModes{"rc", "constqp", "cbr", "vbr"};
constexpr int kHwDefaultQp = 24;

void add_hw_rate_control(const OutputSpec& output, const HwRateModes& modes,
                         VideoEncodePlan& plan) {
  apply_bitrate(output, plan);
  switch (output.rate_control) {
    case RateControl::kDefault:
    case RateControl::kQuality:
      plan.options.emplace_back(modes.option, modes.quality);
      plan.options.emplace_back(
          "qp", std::to_string(output.quality >= 0 ? output.quality : kHwDefaultQp));
      break;
    case RateControl::kCbr:
      plan.options.emplace_back(modes.option, modes.cbr);
      break;
    case RateControl::kVbr:
      plan.options.emplace_back(modes.option, modes.vbr);
      break;
  }
}

void plan_vaapi_encoder(const OutputSpec& output, const EncodeEntrypoints& entrypoints,
                        VideoEncodePlan& plan) {
  // Arc/DG2 and newer expose only the low-power (VDEnc) entrypoint: choose from the probe.
  plan.options = {{"low_power", entrypoints.full ? "0" : "1"}};
  add_hw_rate_control(output, kVaapiModes, plan);
  plan.options.emplace_back("async_depth", std::to_string(kVaapiAsyncDepth));
}

void plan_nvenc_encoder(const OutputSpec& output, VideoEncodePlan& plan) {
  plan.options = {{"preset", output.preset.empty() ? "p4" : output.preset}};
  add_hw_rate_control(output, kNvencModes, plan);
}

int default_gop(const VideoInfo& video) {
  double fps = video.frame_rate.num > 0 ? av_q2d(video.frame_rate) : 25;
  return std::max(1, int(std::lround(2 * fps)));
}

// Everything the graph needs to know about one encoding branch.
struct Branch {
  size_t output_index;
  Size size;
  bool on_device_encoder;
  std::string tail;  // filters after scaling: download + format, or nothing
};

struct VideoDecision {
  bool device_frames = false;  // frames are on the device from decode or upload on
  bool hw_decode = false;
  std::string decode_note;
};

// The graph: scaling per branch. On a device every branch scales from the source (cheap there);
// in software each output scales from the smallest larger output (cascaded), which saves most
// of the scaling work of a ladder.
std::string build_video_graph(const BackendDesc& backend, const VideoDecision& decision,
                              const VideoInfo& video, std::vector<Branch> branches,
                              int upload_extra_frames, const std::vector<int>& hold_frames) {
  GraphBuilder graph("split");
  Tap source{"[in]", ""};
  if (decision.device_frames && !decision.hw_decode) {
    source.filters = std::string(backend.upload);
    if (upload_extra_frames > 0)
      source.filters += "=extra_hw_frames=" + std::to_string(upload_extra_frames);
  }
  Size source_size{video.width, video.height};
  std::stable_sort(branches.begin(), branches.end(),
                   [](const Branch& a, const Branch& b) { return a.size.area() > b.size.area(); });
  // parent[i]: the branch whose scaled frames branch i scales from; -1 = the source.
  std::vector<int> parent(branches.size(), -1);
  if (!decision.device_frames)
    for (size_t i = 1; i < branches.size(); ++i)
      if (branches[i].size.fits_in(branches[i - 1].size)) parent[i] = int(i) - 1;
  auto children_of = [&](int node) { return int(std::count(parent.begin(), parent.end(), node)); };

  std::vector<std::vector<Tap>> taps(branches.size() + 1);  // taps[0] = source
  taps[0] = graph.fan_out(source, "", children_of(-1));
  std::vector<size_t> next_tap(branches.size() + 1, 0);
  for (size_t i = 0; i < branches.size(); ++i) {
    const Branch& branch = branches[i];
    Tap in = taps[parent[i] + 1][next_tap[parent[i] + 1]++];
    Size from = parent[i] < 0 ? source_size : branches[parent[i]].size;
    std::string scale;
    if (decision.device_frames || !(branch.size == from)) {
      scale = GraphBuilder::substitute(backend.scale, branch.size.width, branch.size.height);
      int extra = hold_frames[branch.output_index];
      if (decision.device_frames && extra > 0) scale += ":extra_hw_frames=" + std::to_string(extra);
    }
    taps[i + 1] = graph.fan_out(in, scale, 1 + children_of(int(i)));
    next_tap[i + 1] = 1;  // tap 0 is this branch's own; the rest feed its children
    graph.terminate(taps[i + 1][0], branch.tail, video_sink_label(branch.output_index));
  }
  return graph.text();
}

}  // namespace

std::string video_sink_label(size_t output) {
  return std::string("out").append(std::to_string(output));
}
std::string audio_sink_label(size_t output) {
  return std::string("aout").append(std::to_string(output));
}

int Plan::transfers() const {
  return occurrences(video_graph, "hwupload") + occurrences(video_graph, "hwdownload");
}

std::string StageDevice::to_string() const {
  if (backend == BackendKind::kSoftware) return "cpu";
  std::string text = std::string(name_of(backend)) + " " + path;
  if (!driver.empty()) text += " (" + driver + ")";
  return text;
}

namespace {

Status plan_audio(const OutputSpec& spec, const std::string& container, const MediaInfo& media,
                  OutputPlan& output) {
  if (!media.audio || spec.audio == AudioMode::kNone) return Status::ok();
  const AVOutputFormat* muxer = av_guess_format(output.format.c_str(), nullptr, nullptr);
  bool container_takes_source = av::muxer_takes_codec(muxer, media.audio->codec);
  if (spec.audio == AudioMode::kCopy && !container_takes_source)
    return {Code::kUnsupported, spec.path + ": " + container + " cannot hold " +
                                    media.audio->codec_name + " audio; use --audio aac"};
  bool copy =
      spec.audio == AudioMode::kCopy || (spec.audio == AudioMode::kAuto && container_takes_source);
  output.audio.mode = copy ? AudioPlan::Mode::kCopy : AudioPlan::Mode::kEncode;
  if (!copy) {
    output.audio.encoder = "aac";
    output.audio.bit_rate = spec.audio_bitrate;
  }
  return Status::ok();
}

}  // namespace

Result<Plan> make_plan(const JobSpec& spec, const MediaInfo& media, const HwInventory& devices) {
  TC_RETURN_IF_ERROR(validate(spec));
  if (!media.video) return Status(Code::kInput, media.path + ": has no video stream");
  const VideoInfo& video = *media.video;
  TC_ASSIGN_OR_RETURN(BackendChoice choice, choose_backend(spec, devices));
  const BackendDesc& backend = backend_desc(choice.kind);
  const StageDevice gpu = stage_device(choice);
  const bool on_device = choice.kind != BackendKind::kSoftware;

  Plan plan;
  plan.backend = choice.kind;
  plan.backend_reason = choice.reason;
  plan.device = gpu;
  plan.device_type = backend.device_type;
  plan.hw_format = backend.hw_format;
  plan.stages.push_back({"demux", media.format_name, {}});

  VideoDecision decision;
  decision.device_frames = on_device;
  bool any_encode = std::any_of(spec.outputs.begin(), spec.outputs.end(),
                                [](const OutputSpec& o) { return o.codec != VideoCodec::kCopy; });
  if (on_device && any_encode) {
    bool gpu_decodes = backend.decodes_on_device &&
                       choice.device->decodes(video.codec, video.bit_depth) &&
                       decoder_outputs_device_frames(video.codec, backend.device_type);
    decision.hw_decode = gpu_decodes;
    if (!gpu_decodes)
      decision.decode_note =
          backend.decodes_on_device
              ? "software: " + choice.device->path + " cannot decode " + video.codec_name + " " +
                    std::to_string(video.bit_depth) + "-bit"
              : "software: " + std::string(backend.name) + " has no decoder in FFmpeg";
  }

  std::vector<Branch> branches;
  // Per output: frames its hw encoder holds, which the pool of the scaler feeding it must cover.
  std::vector<int> hold_frames(spec.outputs.size(), 0);
  for (size_t k = 0; k < spec.outputs.size(); ++k) {
    const OutputSpec& output_spec = spec.outputs[k];
    OutputPlan output;
    output.path = output_spec.path;
    TC_ASSIGN_OR_RETURN(std::string container, container_of(output_spec));
    output.format = muxer_of(container);
    if (container == "mp4") output.mux_options.emplace_back("movflags", "+faststart");
    TC_RETURN_IF_ERROR(plan_audio(output_spec, container, media, output));
    std::string label = video_sink_label(k);
    if (output_spec.codec == VideoCodec::kCopy) {
      output.video_copy = true;
      output.width = video.width;
      output.height = video.height;
      plan.stages.push_back({"encode " + label, "copy (" + video.codec_name + ")", {}});
    } else {
      Size size = target_size(output_spec, video);
      output.width = size.width;
      output.height = size.height;
      const CodecEncoders& encoders = encoders_of(output_spec.codec);
      std::string hw_name(hw_encoder(choice.kind, output_spec.codec));
      bool hw_encode = on_device && choice.device->encodes(encoders.id) && encoder_exists(hw_name);
      VideoEncodePlan& encode = output.video;
      encode.gop = output_spec.gop ? output_spec.gop : default_gop(video);
      encode.max_b_frames = output_spec.b_frames;
      Branch branch{k, size, hw_encode, ""};
      if (hw_encode) {
        encode.encoder = hw_name;
        encode.hw_frames = true;
        encode.pix_fmt = AV_PIX_FMT_NV12;
        if (choice.kind == BackendKind::kVaapi)
          plan_vaapi_encoder(output_spec, choice.device->encode.at(encoders.id), encode);
        else
          plan_nvenc_encoder(output_spec, encode);
        int b_frames = output_spec.b_frames >= 0 ? output_spec.b_frames : kVaapiDefaultBFrames;
        hold_frames[k] = kVaapiAsyncDepth + b_frames + 1;
        std::string mode = choice.kind == BackendKind::kVaapi
                               ? (encode.options[0].second == "1" ? " (low_power)" : " (full)")
                               : "";
        plan.stages.push_back({"encode " + label, encode.encoder + mode, gpu});
      } else {
        encode.encoder = encoders.software;
        if (!encoder_exists(encode.encoder))
          return Status(Code::kUnsupported, output_spec.path + ": encoder " + encode.encoder +
                                                " for " + std::string(name_of(output_spec.codec)) +
                                                " is not in this FFmpeg build");
        encode.options = software_rate_control(output_spec, encode.encoder, encode);
        AVPixelFormat arriving = on_device ? backend.download_format : AV_PIX_FMT_YUV420P;
        encode.pix_fmt = encoder_takes(encode.encoder, arriving) ? arriving : AV_PIX_FMT_YUV420P;
        if (on_device) branch.tail = std::string(backend.download);
        if (encode.pix_fmt != arriving || !on_device)
          branch.tail += std::string(branch.tail.empty() ? "" : ",") +
                         "format=" + av_get_pix_fmt_name(encode.pix_fmt);
        std::string why;
        if (on_device)
          why = hw_name.empty() || !encoder_exists(hw_name)
                    ? " (" + std::string(backend.name) + " has no " +
                          std::string(name_of(output_spec.codec)) + " encoder here)"
                    : " (" + gpu.to_string() + " cannot encode " +
                          std::string(name_of(output_spec.codec)) + ")";
        if (on_device) plan.stages.push_back({"download " + label, "hwdownload", gpu});
        plan.stages.push_back({"encode " + label, encode.encoder + why, {}});
      }
      branches.push_back(branch);
    }
    plan.stages.push_back({"mux " + label, output.format, {}});
    plan.outputs.push_back(std::move(output));
  }

  plan.decode.needed = !branches.empty();
  if (plan.decode.needed) {
    plan.decode.hw = decision.hw_decode;
    plan.decode.threads = decision.hw_decode ? 1 : 0;
    // Fixed-size pools: every frame held downstream of the decoder's pool must be covered.
    int in_flight = int(branches.size()) + kGraphSlack;
    bool fixed_pools = choice.kind == BackendKind::kVaapi;
    if (decision.hw_decode) plan.decode.extra_hw_frames = in_flight;
    std::string decode_what =
        video.codec_name + (decision.hw_decode ? " (" + std::string(backend.name) + " hwaccel)"
                            : decision.decode_note.empty() ? " (software)"
                                                           : " (" + decision.decode_note + ")");
    auto position = plan.stages.begin() + 1;
    position = plan.stages.insert(
                   position, {"decode", decode_what, decision.hw_decode ? gpu : StageDevice{}}) +
               1;
    if (on_device && !decision.hw_decode)
      position = plan.stages.insert(position, {"upload", "hwupload", gpu}) + 1;
    if (!fixed_pools) std::fill(hold_frames.begin(), hold_frames.end(), 0);
    plan.video_graph =
        build_video_graph(backend, decision, video, branches,
                          fixed_pools && !decision.hw_decode ? in_flight : 0, hold_frames);
    std::string_view scaler = backend.scale.substr(0, backend.scale.find('=') + 1);  // "scale="
    int scalers = occurrences(plan.video_graph, scaler);
    std::string filter_what =
        scalers ? std::string(scaler.substr(0, scaler.size() - 1)) + " x" + std::to_string(scalers)
                : "format conversion only";
    plan.stages.insert(position, {"filter", filter_what, gpu});
  }

  GraphBuilder audio_graph("asplit");
  std::vector<size_t> audio_outputs;
  for (size_t k = 0; k < plan.outputs.size(); ++k)
    if (plan.outputs[k].audio.mode == AudioPlan::Mode::kEncode) audio_outputs.push_back(k);
  if (!audio_outputs.empty()) {
    auto taps =
        audio_graph.fan_out({"[ain]", ""}, "aformat=sample_fmts=fltp", int(audio_outputs.size()));
    for (size_t i = 0; i < audio_outputs.size(); ++i)
      audio_graph.terminate(taps[i], "", audio_sink_label(audio_outputs[i]));
    plan.audio_graph = audio_graph.text();
  }
  return plan;
}

}  // namespace tc
