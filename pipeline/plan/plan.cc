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
#include "pipeline/plan/graph_builder.h"
#include "pipeline/plan/graphs.h"
#include "pipeline/plan/hdr_plan.h"
#include "pipeline/plan/orientation.h"
#include "pipeline/plan/package_plan.h"
#include "pipeline/plan/refit_plan.h"
#include "pipeline/plan/stereo_rendition.h"
#include "pipeline/plan/streams.h"
#include "pipeline/plan/text_plan.h"
#include "pipeline/plan/thumbnail_plan.h"
#include "pipeline/plan/video_format.h"
#include "pipeline/spec/frame_rate.h"

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

// FFmpeg's own AV1 decoder has no software path: without a hwaccel its get_pixel_format()
// fails ("Your platform doesn't support hardware accelerated AV1 decoding", AVERROR(ENOSYS);
// libavcodec/av1dec.c, 5.1 and 7.1). The codec's default decoder, a library wrapper (libdav1d
// on Debian), decodes in its place; empty where `device_decoder` decodes in software itself.
std::string software_fallback_decoder(const AVCodec* device_decoder) {
  if (device_decoder->id != AV_CODEC_ID_AV1 || device_decoder->wrapper_name) return {};
  const AVCodec* fallback = avcodec_find_decoder(device_decoder->id);
  if (!fallback || fallback == device_decoder || !fallback->wrapper_name) return {};
  return fallback->name;
}

// Two seconds of frames at the output's rate: --fps's, else the source's.
int default_gop(const VideoInfo& video, const FrameRate& output_rate) {
  AVRational rate =
      output_rate.set() ? AVRational{output_rate.num, output_rate.den} : video.frame_rate;
  double fps = rate.num > 0 ? av_q2d(rate) : 25;
  return std::max(1, int(std::lround(2 * fps)));
}

// HEVC in MP4 is tagged hvc1, as the package's segments are (package/segmenter.cc): Apple's
// players refuse hev1, FFmpeg's default. A copied stream gets it too.
uint32_t video_tag(const std::string& container, VideoCodec codec, AVCodecID source) {
  bool hevc =
      codec == VideoCodec::kHevc || (codec == VideoCodec::kCopy && source == AV_CODEC_ID_HEVC);
  return container == "mp4" && hevc ? MKTAG('h', 'v', 'c', '1') : 0;
}

StageDevice stage_device(const BackendChoice& choice) {
  if (!choice.device) return {};
  return {choice.kind, choice.device->path, choice.device->driver};
}

// What every output planner needs to know about the job's backend.
struct PlanContext {
  const BackendDesc& backend;
  const HwDevice* device;  // null for software
  StageDevice runs_on;     // where its device stages run: the device, or the cpu for software
  const MediaInfo& media;
  const VideoInfo& video;  // as stored
  const VideoInfo& shown;  // as displayed: sides swapped where the source turns a quarter
  bool package = false;    // the outputs are a package's renditions
  // An output scales in memory from the source's 10 bits (scales_in_memory): the graph's source
  // then runs no VPP step before the split (deinterlace and turn in memory, the upload 10-bit).
  bool ten_bit_branch_in_memory = false;
  // What the source's frames go through before the split: "deinterlaced", "turned upright",
  // both joined by "and"; "" = nothing.
  std::string source_steps;
  bool on_device() const { return device != nullptr; }
};

std::string format_name(AVPixelFormat format) {
  return av_get_pix_fmt_name(format);
}

// Frames on the device hold the source's depth until a scaler that converts gives them the
// output's, unless a software filter after the download still needs the source's 10 bits.
int source_depth(const VideoInfo& video) {
  return video.bit_depth > 8 ? 10 : 8;
}

// The depth frames decoded in memory are uploaded in: the source's, unless the device's VPP
// cannot read or write 10 bits (device_ten_bit_upload_refusal), when they are converted to
// 8 bits in memory first (the software decoder's yuv420p10le needs a conversion for the
// upload in either case, and nv12 is half p010's bytes). A VPP that reads P010 but writes none
// (Gen9) gets p010 where an output scales in memory from the 10 bits: its scalers make nv12 of
// them for the others.
int upload_depth(const PlanContext& context) {
  int depth = source_depth(context.video);
  if (depth > 8 && context.device && !device_ten_bit_upload_refusal(*context.device).empty() &&
      !context.ten_bit_branch_in_memory)
    return 8;
  return depth;
}

// Where the device's VPP reads P010 but writes none (Gen9: media-driver docs/media_features.md,
// "Supported Video Processing CSC/Scaling Format"; VphalSfcStateG9::IsOutputFormatSupported),
// a 10-bit output encoded in memory (--hdr keep with libx265) takes the 10-bit source's frames
// from the device before any VPP step: hwdownload maps the surface (no VPP), and the scaling
// runs in memory. Through scale_vaapi it would get nv12: PQ quantised to 8 bits, then widened
// (banding). Broadwell's VPP reads no P010: its uploads are nv12, its outputs 8-bit frames.
bool scales_in_memory(const PlanContext& context, const VideoEncodePlan& encode) {
  if (!context.on_device() || source_depth(context.video) <= 8) return false;
  if (context.device->vpp_reads_ten_bit == false ||
      device_vpp_ten_bit_refusal(*context.device).empty())
    return false;
  return encode.download && encode.format.bit_depth > 8;
}

// The deepest frames the device's scalers give (every device branch passes one).
int scaled_depth_limit(const PlanContext& context) {
  return context.device && !device_vpp_ten_bit_refusal(*context.device).empty() ? 8 : 10;
}

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
    // Where discovery has no chroma per profile (NVDEC, Vulkan), device surfaces are 4:2:0
    // (nv12 / p010): 4:2:2 and 4:4:4 sources decode in software and are uploaded.
    if (refusal.empty() && backend.decodes_on_device && context.device->decode_profiles.empty() &&
        video.chroma != ChromaFormat::k420)
      refusal = "decodes 4:2:0 only here, the source is " + std::string(name_of(video.chroma));
    int turns = upright_quarter_turns(video.rotation_deg);
    if (refusal.empty() && turns && device_turn_filter(backend, turns).empty())
      refusal = "the source is turned upright in memory: no " + std::string(backend.name) +
                " filter turns its frames in this FFmpeg";
    if (refusal.empty() && context.ten_bit_branch_in_memory && !context.source_steps.empty())
      refusal = "the source is " + context.source_steps +
                " in memory, so that an output scaled in memory keeps its 10 bits: " +
                device_vpp_ten_bit_refusal(*context.device);
    const AVCodec* decoder = device_frames_decoder(video.codec, backend.device_type);
    if (refusal.empty() && !decoder)
      refusal = "no " + video.codec_name + " decoder with a " + std::string(backend.name) +
                " hw config in this FFmpeg";
    decode.hw = refusal.empty();
    if (decode.hw) {
      decode.decoder = decoder->name;
      decode.software_decoder = software_fallback_decoder(decoder);
    }
    if (!decode.hw)
      decode.note =
          "software: " + (backend.decodes_on_device ? context.device->path + " " : std::string()) +
          refusal;
    decode.upload = !decode.hw;
    if (decode.upload && upload_depth(context) < source_depth(video))
      decode.note += ", uploaded as " +
                     std::string(av_get_pix_fmt_name(device_format(backend, 8))) + ": " +
                     device_ten_bit_upload_refusal(*context.device);
  }
  decode.threads = decode.hw ? 1 : 0;
  if (decode.hw) {
    decode.note = std::string(backend.name) + " hwaccel";
    if (!decode.software_decoder.empty())
      decode.note += ", " + decode.software_decoder + " in software if refused";
    decode.device = context.runs_on;
    // Every frame held downstream of the decoder's pool: one per branch, the graph's queue and,
    // where the pool cannot grow, the frames waiting for the graph's thread. (NVDEC copies each
    // frame out of its own surfaces into a pool that grows: more there only costs surfaces,
    // and the ffmpeg CLI's cuvidCreateDecoder refuses 7 for one 1080p H.264 branch.)
    decode.extra_hw_frames =
        branches + kGraphSlack + (backend.fixed_pools ? kDecodeQueueFrames : 0);
  }
  return decode;
}

// Whether the frames reach the graph's first device filter in 10 bits: the decoder's surfaces
// hold the source's depth, an upload upload_depth's.
bool ten_bit_on_device(const PlanContext& context, const DecodePlan& decode) {
  if (!context.on_device()) return false;
  return (decode.upload ? upload_depth(context) : source_depth(context.video)) > 8;
}

// deinterlace_vaapi and transpose_vaapi write the format they read: FFmpeg 5.1's
// vf_deinterlace_vaapi.c (deint_vaapi_init) and vf_transpose_vaapi.c (transpose_vaapi_init)
// leave output_format AV_PIX_FMT_NONE, and vaapi_vpp.c ff_vaapi_vpp_config_output then takes
// the input's sw_format. On a VPP that writes no P010 (Gen9: VphalSfcStateG9::
// IsOutputFormatSupported; media-driver docs/media_features.md) they would be asked to write
// P010, so the frames are converted to nv12 first by the scaler at their own size (Gen9's VPP
// reads P010). Its pool, fixed where the backend's are, holds what the deinterlacer's does.
DeviceConvertPlan plan_device_convert(const PlanContext& context, const DecodePlan& decode,
                                      const DeinterlacePlan& deinterlace,
                                      const OrientationPlan& orientation, int branches) {
  DeviceConvertPlan plan;
  bool vpp_after_decode = deinterlace.device.backend != BackendKind::kSoftware ||
                          (orientation.on() && orientation.on_device);
  if (!vpp_after_decode || !ten_bit_on_device(context, decode)) return plan;
  std::string refusal = device_vpp_ten_bit_refusal(*context.device);
  if (refusal.empty()) return plan;
  const BackendDesc& backend = context.backend;
  plan.filter = GraphBuilder::substitute(backend.scale.text(), "iw", "ih",
                                         format_name(device_format(backend, 8)));
  if (backend.fixed_pools)
    plan.filter += ":extra_hw_frames=" +
                   std::to_string(std::max(branches + kGraphSlack, backend.scale_min_extra_frames));
  plan.why = "to " + format_name(device_format(backend, 8)) + " before " +
             (deinterlace.device.backend != BackendKind::kSoftware ? deinterlace.filter_name
                                                                   : orientation.filter_names) +
             ", which writes the format it reads: " + refusal;
  plan.device = context.runs_on;
  return plan;
}

// --deinterlace on, or auto on a source whose fields are interlaced.
bool wants_deinterlace(const JobSpec& spec, const VideoInfo& video) {
  return spec.deinterlace == Deinterlace::kOn ||
         (spec.deinterlace == Deinterlace::kAuto && video.interlaced());
}

// What the source's frames go through before the split, as the decode stage says it.
std::string source_steps(const JobSpec& spec, const VideoInfo& video) {
  bool deinterlace = wants_deinterlace(spec, video);
  bool turn = upright_quarter_turns(video.rotation_deg) != 0;
  if (deinterlace && turn) return "deinterlaced and turned upright";
  return deinterlace ? "deinterlaced" : turn ? "turned upright" : "";
}

// Deinterlacing once, before the split: on the device where the backend has a deinterlacer
// (after any upload), else bwdif in memory (before any upload). One frame out per frame in
// (send_frame): the output keeps the source's frame rate.
DeinterlacePlan plan_deinterlace(const PlanContext& context, const JobSpec& spec, int branches) {
  DeinterlacePlan plan;
  const VideoInfo& video = context.video;
  bool automatic = spec.deinterlace == Deinterlace::kAuto;
  plan.on = branches > 0 && wants_deinterlace(spec, video);
  if (!plan.on) return plan;
  plan.why = "source field order " + std::string(field_order_name(video.field_order)) +
             (automatic ? " (--deinterlace auto)" : " (--deinterlace on)");
  const BackendDesc& backend = context.backend;
  // Fields are rows: a source turned upright in memory is deinterlaced in memory first.
  int turns = upright_quarter_turns(video.rotation_deg);
  bool turns_in_memory = turns && device_turn_filter(backend, turns).empty();
  // An output scaled in memory from the 10-bit source needs no VPP step before the split.
  if (context.on_device() && !backend.deinterlace.empty() && !turns_in_memory &&
      !context.ten_bit_branch_in_memory) {
    const FilterDesc& filter = automatic ? backend.deinterlace_auto : backend.deinterlace;
    plan.filter = filter.text();
    plan.filter_name = filter.name;
    // Its output pool is fixed where the backend's are: it holds what the decoder's would.
    if (backend.fixed_pools)
      plan.filter += ":extra_hw_frames=" + std::to_string(branches + kGraphSlack);
    plan.device = context.runs_on;
  } else {
    plan.filter = std::string("bwdif=mode=send_frame:parity=auto:deint=") +
                  (automatic ? "interlaced" : "all");
    plan.filter_name = "bwdif";
  }
  return plan;
}

// Why the device writes no 10-bit `codec` on any entrypoint, or cannot feed one 10-bit frames;
// empty when it can (or unknown).
std::string ten_bit_refusal_of_device(const PlanContext& context, VideoCodec codec) {
  std::string full = device_ten_bit_refusal(*context.device, context.backend, codec, false);
  std::string low_power = device_ten_bit_refusal(*context.device, context.backend, codec, true);
  auto found = context.device->encode.find(codec_id(codec));
  if (found == context.device->encode.end()) return {};
  bool full_ok = found->second.full && full.empty();
  bool low_power_ok = found->second.low_power && low_power.empty();
  if (!full_ok && !low_power_ok)
    return "has no 10-bit " + std::string(name_of(codec)) + " encode (--hdr keep)";
  // Its encoder has 10 bits, but its scalers cannot give it 10-bit frames (Gen9).
  std::string vpp = device_vpp_ten_bit_refusal(*context.device);
  if (!vpp.empty()) return "feeds no 10-bit frames to its encoder (--hdr keep): " + vpp;
  return {};
}

// Deinterlaced, the stream is tagged progressive; else an interlaced source's field order is
// kept, and libx264 codes the fields (its interlaced mode) so that the bitstream says so too.
void keep_fields(const DeinterlacePlan& deinterlace, const VideoInfo& video, VideoCodec codec,
                 OutputPlan& output) {
  VideoEncodePlan& encode = output.video;
  encode.progressive = deinterlace.on;
  if (deinterlace.on || output.video_copy || !video.interlaced()) return;
  encode.field_order = video.field_order;
  encode.codes_fields = !encode.hw_frames && software_encoder(codec).codes_fields;
}

// The device's encoder when it has one for the codec, else the software encoder fed with
// frames downloaded from the device.
Status plan_video_encoder(const PlanContext& context, const OutputSpec& spec, FrameSize size,
                          VideoEncodePlan& encode) {
  const BackendDesc& backend = context.backend;
  std::string codec(name_of(spec.codec));
  std::string hw_name(backend.encoder_for(spec.codec));
  bool hw_named = encoder_exists(hw_name);
  encode.gop = spec.gop ? spec.gop : default_gop(context.video, spec.fps);
  if (spec.fps.set()) encode.frame_rate = {spec.fps.num, spec.fps.den};
  encode.max_b_frames = spec.b_frames;
  encode.codec = spec.codec;
  std::string refusal = context.on_device() ? encode_refusal(*context.device, codec_id(spec.codec),
                                                             size.width, size.height)
                                            : std::string();
  // --hdr keep needs 10 bits: a GPU without them for this codec leaves it to software.
  if (refusal.empty() && context.on_device() && spec.hdr == HdrMode::kKeep &&
      context.video.color.hdr())
    refusal = ten_bit_refusal_of_device(context, spec.codec);
  if (context.on_device() && hw_named && refusal.empty()) {
    encode.encoder = hw_name;
    encode.device = context.runs_on;
    encode.hw_frames = true;
    return plan_hw_encoder_options(spec, backend.encoder,
                                   context.device->encode.at(codec_id(spec.codec)), encode,
                                   context.device->huc_seen);
  }
  const SwEncoderDesc& software = software_encoder(spec.codec);
  encode.encoder = software.name;
  if (!encoder_exists(encode.encoder))
    return Status(Code::kUnsupported, spec.path + ": encoder " + encode.encoder + " for " + codec +
                                          " is not in this FFmpeg build");
  plan_software_encoder_options(spec, software, encode);
  encode.download = context.on_device();
  if (encode.download)
    encode.note = hw_named ? context.runs_on.to_string() + " " + refusal
                           : std::string(backend.name) + " has no " + codec + " encoder here";
  return Status::ok();
}

// Where a 10-bit source is encoded in 8 bits because this GPU's encoder has no 10-bit profile
// (the backend's would), the encode stage says so.
// Where the device's scalers write no 10 bits, a software encoder's 10-bit output is made
// from 8-bit frames, and its stage says that too.
void note_eight_bit_encode(const PlanContext& context, const OutputSpec& spec,
                           VideoEncodePlan& encode) {
  if (!context.on_device() || context.video.bit_depth <= 8) return;
  std::string vpp = device_vpp_ten_bit_refusal(*context.device);
  std::string note;
  if (encode.hw_frames && encode.format.bit_depth <= 8) {
    note = device_ten_bit_refusal(*context.device, context.backend, spec.codec, encode.low_power);
    if (note.empty() && context.backend.encodes_ten_bit(spec.codec)) note = vpp;
    if (!note.empty()) note = "8-bit: " + note;
  } else if (encode.download && encode.format.bit_depth > 8 && !vpp.empty()) {
    bool said = encode.note.find(vpp) != std::string::npos;
    note = scales_in_memory(context, encode)
               ? "scaled in memory from 10-bit frames" + (said ? std::string() : ": " + vpp)
               : "from 8-bit frames: " + vpp;
  }
  if (!note.empty()) encode.note += (encode.note.empty() ? "" : ", ") + note;
}

Result<OutputPlan> plan_output(const PlanContext& context, const OutputSpec& spec) {
  OutputPlan output;
  output.path = spec.path;
  TC_ASSIGN_OR_RETURN(std::string container, container_of(spec));
  output.format = muxer_of(container);
  if (container == "mp4") output.mux_options.emplace_back("movflags", "+faststart");
  output.video_tag = video_tag(container, spec.codec, context.video.codec);
  if (spec.codec == VideoCodec::kCopy) {
    output.video_copy = true;
    output.display_matrix = true;
    output.width = context.video.width;
    output.height = context.video.height;
    return output;
  }
  TC_ASSIGN_OR_RETURN(FrameSize size, target_size(spec, context.shown));
  output.width = size.width;
  output.height = size.height;
  TC_RETURN_IF_ERROR(plan_video_encoder(context, spec, size, output.video));
  FormatChoice choice{context.video, context.backend, context.on_device(),
                      spec,          output.video,    context.device};
  choice.for_players = context.package || container == "mp4" || container == "webm";
  TC_ASSIGN_OR_RETURN(output.video.format, plan_video_format(choice));
  note_eight_bit_encode(context, spec, output.video);
  output.video.pix_fmt = encoder_pixel_format(choice, output.video.format);
  add_declared_hdr_params(context.video, output.video);
  return output;
}

VideoBranch branch_of(const PlanContext& context, size_t k, const OutputPlan& output,
                      const OutputSpec& spec) {
  const VideoEncodePlan& encode = output.video;
  const VideoFormatPlan& format = encode.format;
  const BackendDesc& backend = context.backend;
  VideoBranch branch{k, {output.width, output.height}, encode.download, "", 0};
  // Each output frame is the source frame nearest its time: fps's round=near, the default.
  if (spec.fps.set()) branch.rate = "fps=fps=" + frame_rate_text(spec.fps) + ":round=near";
  bool sdr_on_device = format.to_sdr && format.to_sdr_on_device;
  bool sdr_in_software = format.to_sdr && !sdr_on_device;
  if (sdr_on_device) branch.device_filters = backend.tonemap.text();
  if (sdr_in_software) branch.software_filters = software_to_sdr(context.video.color);
  int scaled_depth =
      backend.scale_converts && !sdr_in_software ? format.bit_depth : source_depth(context.video);
  if (sdr_on_device) scaled_depth = 8;
  scaled_depth = std::min(scaled_depth, scaled_depth_limit(context));
  AVPixelFormat on_device = device_format(backend, scaled_depth);
  branch.scale_in_memory = scales_in_memory(context, encode);
  // It takes the frames as they are on the device: the source's 10 bits.
  if (branch.scale_in_memory) on_device = device_format(backend, source_depth(context.video));
  if (context.on_device()) branch.device_format = format_name(on_device);
  // A device encoder fed by a software tone-map: its frames go down and up again.
  if (branch.scale_in_memory) branch.download = true;
  if (encode.hw_frames && sdr_in_software) {
    branch.download = true;
    branch.reupload_format = format_name(encode.pix_fmt);
  }
  // A software job always states the encoder's format; a device's frames only when the
  // encoder takes another than the device gives, or a software filter ran.
  if (!context.on_device() || (branch.download && encode.pix_fmt != on_device) || sdr_in_software)
    branch.convert_to = format_name(encode.pix_fmt);
  std::string sdr_end = sdr_in_software ? sdr_conversion_end(encode.pix_fmt, format) : "";
  if (!sdr_end.empty()) branch.software_filters += "," + sdr_end;
  // A fixed pool covers what the encoder holds and what waits for the output's thread.
  if (encode.hw_frames && backend.fixed_pools)
    branch.held_frames = backend.encoder_held_frames(spec.b_frames) + kBranchQueueFrames;
  return branch;
}

// `refit`: the graph for frames after a mid-stream change (refit_plan.h).
FilterGraphPlan plan_video_graph(const PlanContext& context, const Plan& plan, const JobSpec& spec,
                                 bool refit = false) {
  std::vector<VideoBranch> branches;
  for (size_t k = 0; k < plan.outputs.size(); ++k)
    if (!plan.outputs[k].video_copy)
      branches.push_back(branch_of(context, k, plan.outputs[k], spec.outputs[k]));
  if (plan.thumbnails.on)
    branches.push_back(thumbnail_branch(context.backend, plan.thumbnails, context.on_device(),
                                        source_depth(context.video)));
  if (branches.empty()) return {};
  if (refit)
    for (VideoBranch& branch : branches)
      branch = refit_branch(context.backend, context.on_device(), std::move(branch));
  VideoSource source{
      {context.shown.width, context.shown.height}, context.on_device(), plan.decode.upload, 0};
  source.refit = refit;
  source.upload_format = format_name(device_format(context.backend, upload_depth(context)));
  source.deinterlace = plan.deinterlace.filter;
  source.deinterlace_on_device = plan.deinterlace.device.backend != BackendKind::kSoftware;
  source.turn = plan.orientation.filter;
  source.turn_on_device = plan.orientation.on_device;
  source.device_convert = plan_device_convert(context, plan.decode, plan.deinterlace,
                                              plan.orientation, int(branches.size()))
                              .filter;
  // An upload's pool, where it must be fixed, holds what the decoder's would.
  if (source.upload && context.backend.fixed_upload_pool)
    source.upload_extra_frames = int(branches.size()) + kGraphSlack;
  return build_video_graph(context.backend, source, std::move(branches));
}

// A graph per encoded input track, fanning out to the outputs that encode it.
std::vector<Plan::AudioGraph> plan_audio_graphs(const Plan& plan) {
  std::vector<Plan::AudioGraph> graphs;
  for (int stream : encoded_audio_streams(plan.outputs)) {
    std::vector<AudioBranch> branches;
    for (size_t k = 0; k < plan.outputs.size(); ++k)
      for (size_t i = 0; i < plan.outputs[k].audio.size(); ++i) {
        const AudioPlan& audio = plan.outputs[k].audio[i];
        if (audio.input_stream == stream && audio.mode == AudioPlan::Mode::kEncode)
          branches.push_back({k, i, audio.filter, audio.stereo_rendition});
      }
    graphs.push_back({stream, build_audio_graph(branches, stream)});
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

namespace {

// The stages `device` would run itself for this job: the decode (its VA profile, size, this
// libavcodec's get_format) and each output's encode (an encoder here, the codec, the size).
int stages_on(const HwDevice& device, const JobSpec& spec, const VideoInfo& video) {
  int kept = decode_refusal(device, video).empty() ? 1 : 0;
  // The decoder reads the stored pictures; the encoders get them turned upright (--size is
  // the displayed size), as plan_output sizes them.
  VideoInfo shown = displayed(video);
  for (const OutputSpec& output : spec.outputs) {
    if (output.codec == VideoCodec::kCopy) continue;
    Result<FrameSize> size = target_size(output, shown);
    FrameSize encoded = size.is_ok() ? *size : FrameSize{shown.width, shown.height};
    bool encoder = encoder_exists(backend_desc(device.backend).encoder_for(output.codec));
    std::string refusal =
        encode_refusal(device, codec_id(output.codec), encoded.width, encoded.height);
    if (encoder && refusal.empty()) ++kept;
  }
  return kept;
}

}  // namespace

Result<Plan> make_plan(const JobSpec& spec, const MediaInfo& media, const HwInventory& devices) {
  TC_RETURN_IF_ERROR(validate(spec));
  if (!media.video) return Status(Code::kInput, media.path + ": has no video stream");
  StagesOnDevice stages = [&](const HwDevice& device) {
    return stages_on(device, spec, *media.video);
  };
  TC_ASSIGN_OR_RETURN(BackendChoice choice,
                      choose_backend(spec.backend, spec.device, devices, stages));
  const BackendDesc& backend = backend_desc(choice.kind);
  VideoInfo shown = displayed(*media.video);
  PlanContext context{backend, choice.device, stage_device(choice), media, *media.video, shown};
  context.package = spec.package.on();

  Plan plan;
  plan.backend = choice.kind;
  plan.backend_reason = choice.reason;
  plan.source_format = media.format_name;
  plan.source_codec = media.video->codec_name;
  plan.device = context.runs_on;
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
  context.ten_bit_branch_in_memory = std::any_of(
      plan.outputs.begin(), plan.outputs.end(),
      [&](const OutputPlan& o) { return !o.video_copy && scales_in_memory(context, o.video); });
  context.source_steps = source_steps(spec, *media.video);
  TC_ASSIGN_OR_RETURN(plan.thumbnails,
                      plan_thumbnails(spec, shown, context.on_device(), context.runs_on));
  branches += plan.thumbnails.on;  // a branch of the one decode, like an output's
  plan.decode = plan_decode(context, branches);
  plan.deinterlace = plan_deinterlace(context, spec, branches);
  for (size_t k = 0; k < plan.outputs.size(); ++k)
    keep_fields(plan.deinterlace, *media.video, spec.outputs[k].codec, plan.outputs[k]);
  if (branches > 0)
    plan.orientation = plan_orientation(
        *media.video, backend,
        (plan.decode.hw || plan.decode.upload) && !context.ten_bit_branch_in_memory,
        context.runs_on, backend.fixed_pools ? branches + kGraphSlack : 0);
  plan.device_convert =
      plan_device_convert(context, plan.decode, plan.deinterlace, plan.orientation, branches);
  plan.video_graph = plan_video_graph(context, plan, spec);
  plan.refit_video_graph = plan_video_graph(context, plan, spec, true);
  if (plan.decode.hw) {
    Plan software_decode = plan;
    software_decode.decode.upload = true;
    plan.fallback_video_graph = plan_video_graph(context, software_decode, spec);
    plan.refit_fallback_video_graph = plan_video_graph(context, software_decode, spec, true);
  }
  TC_RETURN_IF_ERROR(plan_stereo_renditions(spec, media, plan));
  plan.audio_graphs = plan_audio_graphs(plan);
  plan.quality_metrics = spec.quality_metrics;
  if (spec.package.on()) plan_package(spec, *media.video, plan);
  if (spec.package.on()) plan_package_subtitles(spec, media, plan);
  return plan;
}

}  // namespace tc
