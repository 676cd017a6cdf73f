#include "pipeline/hw/backends.h"

#include <algorithm>
#include <cmath>

extern "C" {
#include <libavfilter/version.h>
}

namespace tc {
namespace {

// VA-API filter output pools (scale_vaapi, deinterlace_vaapi): fixed on FFmpeg 5.1 at 4 + the
// filter's extra_hw_frames (about 10 when unset); from 7.1 (libavfilter 10.4) with libva 2 they
// grow on demand and ignore extra_hw_frames (vaapi_vpp.c sets initial_pool_size 0).
constexpr bool kVaapiFilterPoolsFixed = LIBAVFILTER_VERSION_INT < AV_VERSION_INT(10, 4, 100);

constexpr size_t index_of(VideoCodec codec) {
  return static_cast<size_t>(codec);  // kH264 .. kVp9 are 0..3; kCopy has no encoder
}

// VA-API has no scene-cut detection; with idr_interval 0 every I frame is an IDR, so a forced
// I frame starts a new closed GOP. vp9_vaapi and av1_vaapi have no such option: the GOP (keyint)
// and the forced key frames alone.
constexpr KeyframeOptions kVaapiIdr{.options = {{{"idr_interval", "0"}}}};
// qsvenc.c (5.1): forced_idr makes a forced I frame an IDR; every *_qsv encoder has it.
constexpr KeyframeOptions kQsvIdr{.options = {{{"forced_idr", "1"}}}};
constexpr KeyframeOptions kNvencIdr{.options = {{{"forced-idr", "1"}, {"no-scenecut", "1"}}}};

// In the order of VideoCodec (h264, hevc, av1, vp9). x264 and x265: forced frames become IDRs,
// and no scene-cut keyframes between the boundaries; libsvtav1 and libvpx-vp9: the GOP (keyint)
// and the forced key frames alone.
constexpr std::array<SwEncoderDesc, 4> kSoftwareEncoders{{
    {.codec = VideoCodec::kH264,
     .name = "libx264",
     .default_crf = 23,
     .cbr_option = {"nal-hrd", "cbr"},
     .preset_option = "preset",
     .default_preset = "veryfast",
     .keyframes = {.options = {{{"forced-idr", "1"}, {"sc_threshold", "0"}}}, .keyint_min = true},
     .gop_parallel = true,
     .avx512_misreads = true,
     .codes_fields = true},
    {.codec = VideoCodec::kHevc,
     .name = "libx265",
     .default_crf = 23,
     .preset_option = "preset",
     .default_preset = "veryfast",
     .after_preset = {"x265-params", "log-level=error"},
     .params_option = "x265-params",
     .hdr_params = HdrParamsSyntax::kX265,
     .keyframes = {.options = {{{"forced-idr", "1"}}},
                   .keyint_min = true,
                   .params = "scenecut=0:open-gop=0"}},
    // libsvtav1 has no `rc` option (FFmpeg 5.1 and 7.1): it takes CBR when the peak equals the
    // rate and VBR otherwise, from bit_rate and rc_max_rate.
    {.codec = VideoCodec::kAv1,
     .name = "libsvtav1",
     .default_crf = 35,
     .preset_option = "preset",
     .default_preset = "10",
     .params_option = "svtav1-params",
     .hdr_params = HdrParamsSyntax::kSvtAv1},
    {.codec = VideoCodec::kVp9,
     .name = "libvpx-vp9",
     .default_crf = 32,
     .before_preset = {"deadline", "realtime"},
     .preset_option = "cpu-used",
     .default_preset = "8",
     .after_preset = {"row-mt", "1"}},
}};

// VA-API: pools hold nv12; scale_vaapi converts while it scales, so every branch gets the
// encoder's format without leaving the GPU. Encoders keep async_depth (FFmpeg 5.1's default,
// 2) frames in flight; low_power follows the probed entrypoints (only VDEnc on Arc and newer).
constexpr BackendDesc kVaapi{
    .kind = BackendKind::kVaapi,
    .name = "vaapi",
    .device_type = AV_HWDEVICE_TYPE_VAAPI,
    .hw_format = AV_PIX_FMT_VAAPI,
    .sw_format = AV_PIX_FMT_NV12,
    .scale = {"scale_vaapi", "w=%W:h=%H:format=%F"},
    .upload = "format=%F,hwupload",
    .download = "hwdownload,format=%F",
    .decodes_on_device = true,
    .fixed_pools = kVaapiFilterPoolsFixed,
    .auto_label = "Intel GPU",
    .device_noun = "Intel GPU render node",
    .encoders = {"h264_vaapi", "hevc_vaapi", "av1_vaapi", "vp9_vaapi"},
    .encoder = {.low_power_option = "low_power",
                .rate_option = "rc_mode",
                .quality_mode = "CQP",
                .cbr_mode = "CBR",
                .vbr_mode = "VBR",
                .default_qp = 24,
                // Only h264_vaapi and hevc_vaapi have a private `qp`; vp9_vaapi and av1_vaapi
                // read AVCodecContext.global_quality as their quantiser index (0..255), and an
                // option an encoder does not have fails its open (vaapi_encode_vp9.c, _av1.c).
                .quality_options =
                    {{{"qp", 51}, {"qp", 51}, {"global_quality", 255}, {"global_quality", 255}}},
                .async_depth = 2,
                .default_b_frames = 2,
                .keyframes = {kVaapiIdr, kVaapiIdr, {}, {}}},
    .ten_bit_format = AV_PIX_FMT_P010,
    .scale_converts = true,
    // scale_vaapi's default mode is hq in 5.1 and 7.1 (Intel's AVS polyphase filter).
    .tonemap = {"tonemap_vaapi", "format=nv12:p=bt709:t=bt709:m=bt709"},
    .deinterlace = {"deinterlace_vaapi", "rate=frame:auto=0"},
    .deinterlace_auto = {"deinterlace_vaapi", "rate=frame:auto=1"},
    .ten_bit_encoders = {false, true, true, true},
    // pad_vaapi is in FFmpeg 6.1 and later (7.1 in the container), not in Debian 12's 5.1.
    .pad = {"pad_vaapi", "w=%W:h=%H:x=(ow-iw)/2:y=(oh-ih)/2"},
    .turns = {{{},
               {"transpose_vaapi", "dir=clock"},
               {"transpose_vaapi", "dir=reversal"},
               {"transpose_vaapi", "dir=cclock"}}},
    // 5.1's vaapi_vpp.c: initial_pool_size 4, ff_filter_init_hw_frames(..., 10): unset = 10.
    .scale_min_extra_frames = kVaapiFilterPoolsFixed ? 10 - 4 : 0,
};

// QSV: Intel's Media SDK / oneVPL over the same VA-API driver and render node (the device is
// derived from the node's VA-API device). The *_qsv decoders and encoders and scale_qsv keep
// frames in QSV surfaces; their pools are fixed like VA-API's. The encoders have no rate-control
// option: constant QP is the qscale flag with global_quality = QP x FF_QP2LAMBDA (118), and
// CBR or VBR follow from the rates (peak = rate is CBR), as qsvenc.c chooses. `auto` never
// picks QSV: VA-API drives the same hardware with fewer layers.
constexpr BackendDesc kQsv{
    .kind = BackendKind::kQsv,
    .name = "qsv",
    .device_type = AV_HWDEVICE_TYPE_QSV,
    .hw_format = AV_PIX_FMT_QSV,
    .sw_format = AV_PIX_FMT_NV12,
    .scale = {"scale_qsv", "w=%W:h=%H:format=%F"},
    .upload = "format=%F,hwupload",
    .download = "hwdownload,format=%F",
    .decodes_on_device = true,
    .fixed_pools = true,
    .auto_label = "",
    .device_noun = "Intel GPU render node with a QSV runtime",
    .encoders = {"h264_qsv", "hevc_qsv", "av1_qsv", "vp9_qsv"},
    .encoder = {.low_power_option = "low_power",
                .preset_option = "preset",
                .default_preset = "medium",  // qsvenc.c's default (MFX_TARGETUSAGE_BALANCED)
                .rate_option = "flags",
                .quality_mode = "+qscale",
                .default_qp = 24,
                // av1_qsv's QP is on AV1's quantiser scale: qsvenc.c (init_video_param, CQP)
                // clips global_quality / FF_QP2LAMBDA to 0..255 for AV1, to 0..51 otherwise.
                .quality_options = {{{"global_quality", 51 * 118},
                                     {"global_quality", 51 * 118},
                                     {"global_quality", 255 * 118},
                                     {"global_quality", 51 * 118}}},
                .async_depth = 4,  // qsvenc.c's default
                .default_b_frames = 2,
                .keyframes = {kQsvIdr, kQsvIdr, kQsvIdr, kQsvIdr}},
    .ten_bit_format = AV_PIX_FMT_P010,
    .scale_converts = true,
    .fixed_upload_pool = true,
    // deinterlace_qsv has no per-frame auto mode: auto turns it on for interlaced sources only.
    .deinterlace = {"deinterlace_qsv", "mode=advanced"},
    .deinterlace_auto = {"deinterlace_qsv", "mode=advanced"},
    .ten_bit_encoders = {false, true, true, true},
    // vf_scale_qsv.c (5.1) init_out_pool: initial_pool_size 4, ff_filter_init_hw_frames(ctx,
    // outlink, 32): unset = 32 frames, set = 4 + extra_hw_frames.
    .scale_min_extra_frames = 32 - 4,
};

constexpr BackendDesc kCuda{
    .kind = BackendKind::kCuda,
    .name = "cuda",
    .device_type = AV_HWDEVICE_TYPE_CUDA,
    .hw_format = AV_PIX_FMT_CUDA,
    .sw_format = AV_PIX_FMT_NV12,
    .scale = {"scale_cuda", "w=%W:h=%H:format=%F"},
    .upload = "format=%F,hwupload",
    .download = "hwdownload,format=%F",
    .decodes_on_device = true,
    .fixed_pools = false,
    .auto_label = "",  // probing CUDA starts a driver (seconds): only when asked for
    .device_noun = "cuda device",
    .encoders = {"h264_nvenc", "hevc_nvenc", "av1_nvenc", ""},
    .encoder = {.preset_option = "preset",
                .default_preset = "p4",
                .rate_option = "rc",
                .quality_mode = "constqp",
                .cbr_mode = "cbr",
                .vbr_mode = "vbr",
                .default_qp = 24,
                .quality_options = {{{"qp", 51}, {"qp", 51}, {"qp", 51}, {}}},
                .keyframes = {kNvencIdr, kNvencIdr, kNvencIdr, {}}},
    .ten_bit_format = AV_PIX_FMT_P010,
    .scale_converts = true,
    // scale_cuda's kernels sample a fixed footprint: past 2:1 they skip source pixels. Its
    // default interpolation, not interp_algo=lanczos, which measured worse (bench/README.md,
    // "Backend table figures").
    .scale_max_ratio = 2,
    // scale_cuda passes frames of its size and format through (its passthrough defaults to 1),
    // and FFmpeg 5.1's NVDEC frames are its mapped surfaces, a fixed few (nvdec.c:
    // cuvidMapVideoFrame, at most ulNumOutputSurfaces at once): an output's GOP chunks can hold
    // them all, and the next scale fails with AVERROR_EXTERNAL. Its own frames are the same
    // bytes.
    .scale_own_frames = "passthrough=0",
    .deinterlace = {"yadif_cuda", "mode=send_frame:parity=auto:deint=all"},
    .deinterlace_auto = {"yadif_cuda", "mode=send_frame:parity=auto:deint=interlaced"},
    .ten_bit_encoders = {false, true, true, false},
};

// FFmpeg 5.1 has no Vulkan decoder or encoder: frames go up, are scaled, and come back.
constexpr BackendDesc kVulkan{
    .kind = BackendKind::kVulkan,
    .name = "vulkan",
    .device_type = AV_HWDEVICE_TYPE_VULKAN,
    .hw_format = AV_PIX_FMT_VULKAN,
    .sw_format = AV_PIX_FMT_YUV420P,
    .scale = {"scale_vulkan", "w=%W:h=%H"},
    .upload = "format=%F,hwupload",
    .download = "hwdownload,format=%F",
    .decodes_on_device = false,
    .fixed_pools = false,
    .auto_label = "",
    .device_noun = "vulkan device",
    .encoders = {},
    .encoder = {},
    // scale_vulkan is bilinear: a 2-tap filter that aliases past 2:1.
    .scale_max_ratio = 2,
    // transpose_vulkan has no half turn: flip_vulkan (both ways) is one.
    .turns = {{{},
               {"transpose_vulkan", "dir=clock"},
               {"flip_vulkan", ""},
               {"transpose_vulkan", "dir=cclock"}}},
    // One thread: FFmpeg 5.1's hwcontext_vulkan.c submits every transfer and filter to the
    // device's queues (vkGetDeviceQueue of one family, same indices) with no lock, which the
    // Vulkan spec forbids from two threads, and bumps a frame's semaphore values (AVVkFrame
    // sem_value) unlocked, though split hands one frame to several outputs: with stage threads,
    // frames went to the wrong time (bench/README.md, "Backend table figures"). Later FFmpeg
    // adds lock_queue for this.
    .stage_threads = false,
};

constexpr BackendDesc kSoftware{
    .kind = BackendKind::kSoftware,
    .name = "software",
    .device_type = AV_HWDEVICE_TYPE_NONE,
    .hw_format = AV_PIX_FMT_NONE,
    .sw_format = AV_PIX_FMT_YUV420P,
    .scale = {"scale", "%W:%H"},
    .upload = "",
    .download = "",
    .decodes_on_device = false,
    .fixed_pools = false,
    .auto_label = "",
    .device_noun = "",
    .encoders = {kSoftwareEncoders[0].name, kSoftwareEncoders[1].name, kSoftwareEncoders[2].name,
                 kSoftwareEncoders[3].name},
    .encoder = {},
};

constexpr std::array kBackends{kVaapi, kQsv, kCuda, kVulkan, kSoftware};

}  // namespace

std::string FilterDesc::text() const {
  return options.empty() ? std::string(name) : std::string(name) + "=" + std::string(options);
}

int QualityOption::value_for(int qp) const {
  return std::clamp(int(std::lround(double(qp) * scale_max / 51)), 0, scale_max);
}

const QualityOption& HwEncoderDesc::quality_for(VideoCodec codec) const {
  return quality_options[index_of(codec)];
}

std::string_view BackendDesc::encoder_for(VideoCodec codec) const {
  return codec == VideoCodec::kCopy ? std::string_view() : encoders[index_of(codec)];
}

bool BackendDesc::encodes_ten_bit(VideoCodec codec) const {
  return codec != VideoCodec::kCopy && ten_bit_encoders[index_of(codec)];
}

int BackendDesc::encoder_held_frames(int b_frames) const {
  if (!fixed_pools) return 0;
  return encoder.async_depth + (b_frames >= 0 ? b_frames : encoder.default_b_frames) + 1;
}

const std::array<BackendDesc, 5>& backends() {
  return kBackends;
}

const SwEncoderDesc& software_encoder(VideoCodec codec) {
  return kSoftwareEncoders[codec == VideoCodec::kCopy ? 0 : index_of(codec)];
}

const std::array<SwEncoderDesc, 4>& software_encoders() {
  return kSoftwareEncoders;
}

const KeyframeOptions& keyframe_options(BackendKind backend, VideoCodec codec) {
  static constexpr KeyframeOptions kNone{};
  if (codec == VideoCodec::kCopy) return kNone;
  if (backend == BackendKind::kSoftware) return software_encoder(codec).keyframes;
  return backend_desc(backend).encoder.keyframes[index_of(codec)];
}

const BackendDesc& backend_desc(BackendKind kind) {
  for (const BackendDesc& desc : kBackends)
    if (desc.kind == kind) return desc;
  return kSoftware;  // kAuto is resolved before anyone asks; software is the safe answer
}

AVCodecID codec_id(VideoCodec codec) {
  switch (codec) {
    case VideoCodec::kH264:
      return AV_CODEC_ID_H264;
    case VideoCodec::kHevc:
      return AV_CODEC_ID_HEVC;
    case VideoCodec::kAv1:
      return AV_CODEC_ID_AV1;
    case VideoCodec::kVp9:
      return AV_CODEC_ID_VP9;
    case VideoCodec::kCopy:
      break;
  }
  return AV_CODEC_ID_NONE;
}

}  // namespace tc
