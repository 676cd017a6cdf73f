#include "pipeline/hw/backends.h"

#include <array>

namespace tc {
namespace {

// VA-API pools hold nv12 (p010 for 10 bit); scale_vaapi converts while it scales, so every
// branch gets the encoder's format without leaving the GPU.
constexpr std::array kBackends{
    BackendDesc{BackendKind::kSoftware, "software", AV_HWDEVICE_TYPE_NONE, AV_PIX_FMT_NONE,
                "scale=%W:%H", "", "", AV_PIX_FMT_NONE, false},
    BackendDesc{BackendKind::kVaapi, "vaapi", AV_HWDEVICE_TYPE_VAAPI, AV_PIX_FMT_VAAPI,
                "scale_vaapi=w=%W:h=%H:format=nv12", "format=nv12,hwupload",
                "hwdownload,format=nv12", AV_PIX_FMT_NV12, true},
    BackendDesc{BackendKind::kCuda, "cuda", AV_HWDEVICE_TYPE_CUDA, AV_PIX_FMT_CUDA,
                "scale_cuda=w=%W:h=%H", "format=nv12,hwupload", "hwdownload,format=nv12",
                AV_PIX_FMT_NV12, true},
    // FFmpeg 5.1 has no Vulkan decoder or encoder: frames go up, are scaled, and come back.
    BackendDesc{BackendKind::kVulkan, "vulkan", AV_HWDEVICE_TYPE_VULKAN, AV_PIX_FMT_VULKAN,
                "scale_vulkan=w=%W:h=%H", "format=yuv420p,hwupload", "hwdownload,format=yuv420p",
                AV_PIX_FMT_YUV420P, false},
};

constexpr std::array kEncoders{
    CodecEncoders{VideoCodec::kH264, AV_CODEC_ID_H264, "libx264", "h264_vaapi", "h264_nvenc"},
    CodecEncoders{VideoCodec::kHevc, AV_CODEC_ID_HEVC, "libx265", "hevc_vaapi", "hevc_nvenc"},
    CodecEncoders{VideoCodec::kAv1, AV_CODEC_ID_AV1, "libsvtav1", "av1_vaapi", "av1_nvenc"},
    CodecEncoders{VideoCodec::kVp9, AV_CODEC_ID_VP9, "libvpx-vp9", "vp9_vaapi", ""},
    CodecEncoders{VideoCodec::kCopy, AV_CODEC_ID_NONE, "", "", ""},
};

}  // namespace

const BackendDesc& backend_desc(BackendKind kind) {
  for (const BackendDesc& desc : kBackends)
    if (desc.kind == kind) return desc;
  return kBackends[0];  // kAuto is resolved before anyone asks; software is the safe answer
}

const CodecEncoders& encoders_of(VideoCodec codec) {
  for (const CodecEncoders& encoders : kEncoders)
    if (encoders.codec == codec) return encoders;
  return kEncoders.back();
}

std::string_view hw_encoder(BackendKind backend, VideoCodec codec) {
  const CodecEncoders& encoders = encoders_of(codec);
  if (backend == BackendKind::kVaapi) return encoders.vaapi;
  if (backend == BackendKind::kCuda) return encoders.cuda;
  return {};
}

}  // namespace tc
