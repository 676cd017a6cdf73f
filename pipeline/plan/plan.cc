// make_plan, along its decisions: the backend (backend_choice.cc), the decoder, each output
// (container, audio, video encoder), the graphs (graphs.cc), then the stages in order.
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
#include "pipeline/hw/decode_caps.h"
#include "pipeline/plan/backend_choice.h"
#include "pipeline/plan/encoder_options.h"
#include "pipeline/plan/graphs.h"
#include "pipeline/plan/streams.h"

namespace tc {
namespace {

// Frames a filter graph can queue per branch between our pushes and pulls.
constexpr int kGraphSlack = 2;

int even(double value) {
  return std::max(2, 2 * int(std::lround(value / 2)));
}

// One side 0 keeps the source's aspect ratio; both 0 keeps the source size (made even). A kept
// side is computed in double and checked before it becomes an int: a 16x4096 source scaled to
// width 1024 asks for a 262144-pixel height, which no encoder takes.
Result<FrameSize> target_size(const OutputSpec& output, const VideoInfo& video) {
  if (!output.width && !output.height) return FrameSize{video.width & ~1, video.height & ~1};
  double width = output.width ? output.width : double(video.width) * output.height / video.height;
  double height = output.height ? output.height : double(video.height) * output.width / video.width;
  if (!(width <= kMaxSide && height <= kMaxSide))  // also refuses NaN from a 0x0 source
    return Status(Code::kInvalidArgument,
                  output.path + ": " + std::to_string(std::lround(std::min(width, 1e9))) + "x" +
                      std::to_string(std::lround(std::min(height, 1e9))) +
                      " (the source's aspect ratio kept) is more than " + std::to_string(kMaxSide) +
                      " pixels a side; set both width and height");
  return FrameSize{output.width ? output.width : even(width),
                   output.height ? output.height : even(height)};
}

std::string muxer_of(const std::string& container) {
  if (container == "mkv") return "matroska";
  return container;  // "mp4", "mpegts"
}

bool encoder_exists(std::string_view name) {
  return !name.empty() && avcodec_find_encoder_by_name(std::string(name).c_str()) != nullptr;
}

// A decoder of the codec that can output device frames of `type`: not only avcodec_find_decoder's
// pick, which for AV1 on Debian is libdav1d (no hw config), but the native decoder that has one.
const AVCodec* device_frames_decoder(AVCodecID codec, AVHWDeviceType type) {
  void* iterator = nullptr;
  while (const AVCodec* decoder = av_codec_iterate(&iterator)) {
    if (decoder->id != codec || !av_codec_is_decoder(decoder)) continue;
    for (int i = 0; const AVCodecHWConfig* config = avcodec_get_hw_config(decoder, i); ++i)
      if (config->device_type == type &&
          (config->methods & AV_CODEC_HW_CONFIG_METHOD_HW_DEVICE_CTX))
        return decoder;
  }
  return nullptr;
}

bool encoder_takes(std::string_view encoder, AVPixelFormat format) {
  const AVCodec* codec = avcodec_find_encoder_by_name(std::string(encoder).c_str());
  const AVPixelFormat* formats = av::encoder_pixel_formats(codec);
  if (!formats) return false;
  for (const AVPixelFormat* f = formats; *f != AV_PIX_FMT_NONE; ++f)
    if (*f == format) return true;
  return false;
}

int default_gop(const VideoInfo& video) {
  double fps = video.frame_rate.num > 0 ? av_q2d(video.frame_rate) : 25;
  return std::max(1, int(std::lround(2 * fps)));
}

StageDevice stage_device(const BackendChoice& choice) {
  if (!choice.device) return {};
  return {choice.kind, choice.device->path, choice.device->driver};
}

// What every output planner needs to know about the job's backend.
struct PlanContext {
  const BackendDesc& backend;
  const HwDevice* device;  // null for software
  StageDevice gpu;         // cpu for software
  const MediaInfo& media;
  const VideoInfo& video;
  bool on_device() const { return device != nullptr; }
};

// Decodes on the device when the device, the backend and this libavcodec all can; the note
// says why not otherwise.
DecodePlan plan_decode(const PlanContext& context, int branches) {
  DecodePlan decode;
  const VideoInfo& video = context.video;
  const BackendDesc& backend = context.backend;
  decode.needed = branches > 0;
  if (!decode.needed) return decode;
  if (context.on_device()) {
    std::string refusal = backend.decodes_on_device
                              ? decode_refusal(*context.device, video)
                              : std::string(backend.name) + " has no decoder in FFmpeg";
    const AVCodec* decoder = device_frames_decoder(video.codec, backend.device_type);
    if (refusal.empty() && !decoder)
      refusal = "no " + video.codec_name + " decoder with a " + std::string(backend.name) +
                " hw config in this FFmpeg";
    decode.hw = refusal.empty();
    if (decode.hw) decode.decoder = decoder->name;
    if (!decode.hw)
      decode.note =
          "software: " + (backend.decodes_on_device ? context.device->path + " " : std::string()) +
          refusal;
    decode.upload = !decode.hw;
  }
  decode.threads = decode.hw ? 1 : 0;
  if (decode.hw) {
    decode.note = std::string(backend.name) + " hwaccel";
    decode.device = context.gpu;
    // Every frame held downstream of the decoder's pool: one per branch plus the graph's queue.
    decode.extra_hw_frames = branches + kGraphSlack;
  }
  return decode;
}

// The device's encoder when it has one for the codec, else the software encoder fed with
// frames downloaded from the device.
Status plan_video_encoder(const PlanContext& context, const OutputSpec& spec, FrameSize size,
                          VideoEncodePlan& encode) {
  const BackendDesc& backend = context.backend;
  std::string codec(name_of(spec.codec));
  std::string hw_name(backend.encoder_for(spec.codec));
  bool hw_named = encoder_exists(hw_name);
  encode.gop = spec.gop ? spec.gop : default_gop(context.video);
  encode.max_b_frames = spec.b_frames;
  std::string refusal = context.on_device() ? encode_refusal(*context.device, codec_id(spec.codec),
                                                             size.width, size.height)
                                            : std::string();
  if (context.on_device() && hw_named && refusal.empty()) {
    encode.encoder = hw_name;
    encode.device = context.gpu;
    encode.hw_frames = true;
    encode.pix_fmt = backend.sw_format;
    return plan_hw_encoder_options(spec, backend.encoder,
                                   context.device->encode.at(codec_id(spec.codec)), encode);
  }
  encode.encoder = backend_desc(BackendKind::kSoftware).encoder_for(spec.codec);
  if (!encoder_exists(encode.encoder))
    return Status(Code::kUnsupported, spec.path + ": encoder " + encode.encoder + " for " + codec +
                                          " is not in this FFmpeg build");
  plan_software_encoder_options(spec, encode);
  AVPixelFormat arriving = backend.sw_format;
  encode.pix_fmt = encoder_takes(encode.encoder, arriving) ? arriving : AV_PIX_FMT_YUV420P;
  encode.download = context.on_device();
  if (encode.download)
    encode.note = hw_named ? context.gpu.to_string() + " " + refusal
                           : std::string(backend.name) + " has no " + codec + " encoder here";
  return Status::ok();
}

Result<OutputPlan> plan_output(const PlanContext& context, const OutputSpec& spec) {
  OutputPlan output;
  output.path = spec.path;
  TC_ASSIGN_OR_RETURN(std::string container, container_of(spec));
  output.format = muxer_of(container);
  if (container == "mp4") output.mux_options.emplace_back("movflags", "+faststart");
  if (spec.codec == VideoCodec::kCopy) {
    output.video_copy = true;
    output.width = context.video.width;
    output.height = context.video.height;
    return output;
  }
  TC_ASSIGN_OR_RETURN(FrameSize size, target_size(spec, context.video));
  output.width = size.width;
  output.height = size.height;
  TC_RETURN_IF_ERROR(plan_video_encoder(context, spec, size, output.video));
  return output;
}

VideoBranch branch_of(const PlanContext& context, size_t k, const OutputPlan& output,
                      const OutputSpec& spec) {
  const VideoEncodePlan& encode = output.video;
  VideoBranch branch{k, {output.width, output.height}, encode.download, "", 0};
  // A software job always states the encoder's format; a device's frames only when the
  // encoder takes another than the device gives.
  if (!context.on_device() || encode.pix_fmt != context.backend.sw_format)
    branch.convert_to = av_get_pix_fmt_name(encode.pix_fmt);
  if (encode.hw_frames) branch.held_frames = context.backend.encoder_held_frames(spec.b_frames);
  return branch;
}

FilterGraphPlan plan_video_graph(const PlanContext& context, const Plan& plan,
                                 const JobSpec& spec) {
  std::vector<VideoBranch> branches;
  for (size_t k = 0; k < plan.outputs.size(); ++k)
    if (!plan.outputs[k].video_copy)
      branches.push_back(branch_of(context, k, plan.outputs[k], spec.outputs[k]));
  if (branches.empty()) return {};
  VideoSource source{
      {context.video.width, context.video.height}, context.on_device(), plan.decode.upload, 0};
  // An upload's pool is fixed too where the backend's are: it holds what the decoder's would.
  if (source.upload && context.backend.fixed_pools)
    source.upload_extra_frames = int(branches.size()) + kGraphSlack;
  return build_video_graph(context.backend, source, std::move(branches));
}

std::string with_note(const std::string& what, const std::string& note) {
  return note.empty() ? what : what + " (" + note + ")";
}

std::string filter_what(const BackendDesc& backend, int scalers) {
  if (scalers == 0) return "format conversion only";
  std::string_view scale = backend.scale.substr(0, backend.scale.find('='));  // "scale_vaapi"
  return std::string(scale) + " x" + std::to_string(scalers);
}

void add_output_stages(const Plan& plan, size_t k, const std::string& source_codec,
                       std::vector<Stage>& stages) {
  const OutputPlan& output = plan.outputs[k];
  std::string label = "out" + std::to_string(k);
  const VideoEncodePlan& video = output.video;
  if (output.video_copy) {
    stages.push_back({"encode " + label, "copy (" + source_codec + ")", {}});
  } else {
    if (video.download) stages.push_back({"download " + label, "hwdownload", plan.device});
    stages.push_back({"encode " + label, with_note(video.encoder, video.note), video.device});
  }
  stages.push_back({"mux " + label, output.format, {}});
}

std::vector<Stage> plan_stages(const Plan& plan, const MediaInfo& media,
                               const BackendDesc& backend) {
  std::vector<Stage> stages{{"demux", media.format_name, {}}};
  const DecodePlan& decode = plan.decode;
  if (decode.needed) {
    stages.push_back(
        {"decode",
         with_note(media.video->codec_name, decode.note.empty() ? "software" : decode.note),
         decode.device});
    if (decode.upload) stages.push_back({"upload", "hwupload", plan.device});
    stages.push_back({"filter", filter_what(backend, plan.video_graph.scalers), plan.device});
  }
  for (size_t k = 0; k < plan.outputs.size(); ++k)
    add_output_stages(plan, k, media.video->codec_name, stages);
  return stages;
}

// A graph per encoded input track, fanning out to the outputs that encode it.
std::vector<Plan::AudioGraph> plan_audio_graphs(const Plan& plan) {
  std::vector<Plan::AudioGraph> graphs;
  for (int stream : encoded_audio_streams(plan.outputs)) {
    std::vector<size_t> outputs;
    for (size_t k = 0; k < plan.outputs.size(); ++k)
      for (const AudioPlan& audio : plan.outputs[k].audio)
        if (audio.input_stream == stream && audio.mode == AudioPlan::Mode::kEncode)
          outputs.push_back(k);
    graphs.push_back({stream, build_audio_graph(outputs, stream)});
  }
  return graphs;
}

}  // namespace

std::string StageDevice::to_string() const {
  if (backend == BackendKind::kSoftware) return "cpu";
  std::string text = std::string(name_of(backend)) + " " + path;
  if (!driver.empty()) text += " (" + driver + ")";
  return text;
}

Result<Plan> make_plan(const JobSpec& spec, const MediaInfo& media, const HwInventory& devices) {
  TC_RETURN_IF_ERROR(validate(spec));
  if (!media.video) return Status(Code::kInput, media.path + ": has no video stream");
  TC_ASSIGN_OR_RETURN(BackendChoice choice, choose_backend(spec.backend, spec.device, devices));
  const BackendDesc& backend = backend_desc(choice.kind);
  PlanContext context{backend, choice.device, stage_device(choice), media, *media.video};

  Plan plan;
  plan.backend = choice.kind;
  plan.backend_reason = choice.reason;
  plan.device = context.gpu;
  plan.device_type = backend.device_type;
  plan.hw_format = backend.hw_format;
  for (const OutputSpec& output_spec : spec.outputs) {
    TC_ASSIGN_OR_RETURN(OutputPlan output, plan_output(context, output_spec));
    TC_ASSIGN_OR_RETURN(std::string container, container_of(output_spec));
    TC_RETURN_IF_ERROR(
        plan_streams(output_spec, container, media, plan.outputs.size(), output, plan.streams));
    plan.outputs.push_back(std::move(output));
  }
  int branches = int(std::count_if(plan.outputs.begin(), plan.outputs.end(),
                                   [](const OutputPlan& o) { return !o.video_copy; }));
  plan.decode = plan_decode(context, branches);
  plan.video_graph = plan_video_graph(context, plan, spec);
  if (plan.decode.hw) {
    Plan software_decode = plan;
    software_decode.decode.upload = true;
    plan.fallback_video_graph = plan_video_graph(context, software_decode, spec);
  }
  plan.audio_graphs = plan_audio_graphs(plan);
  plan.stages = plan_stages(plan, media, backend);
  return plan;
}

}  // namespace tc
