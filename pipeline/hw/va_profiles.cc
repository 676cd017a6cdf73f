#include "pipeline/hw/va_profiles.h"

#include <va/va.h>

#include <array>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavcodec/version.h>
#include <libavutil/pixdesc.h>
}

#include "pipeline/hw/decode_caps.h"

namespace tc {
namespace {

// AVCodecParameters.profile values we match on. They are the bitstreams' own profile numbers
// (profile_idc, general_profile_idc, seq_profile), the same in FFmpeg 5.1 (FF_PROFILE_*) and 7.1
// (AV_PROFILE_*), so they are spelled here once rather than through either macro family.
constexpr int kUnknownProfile = -99;
constexpr int kH264Constrained = 1 << 9;  // constraint_set1_flag
constexpr int kH264Baseline = 66;
constexpr int kH264ConstrainedBaseline = kH264Baseline | kH264Constrained;
constexpr int kH264Main = 77;
constexpr int kH264High = 100;
constexpr int kHevcMain = 1;
constexpr int kHevcMain10 = 2;
constexpr int kHevcMainStill = 3;
constexpr int kHevcRext = 4;
constexpr int kHevcScc = 9;
constexpr int kAv1Main = 0;
constexpr int kAv1High = 1;
constexpr int kMpeg2Main = 4;
constexpr int kMpeg2Simple = 5;
constexpr int kVc1Simple = 0;
constexpr int kVc1Main = 1;

constexpr std::array kVaProfiles{
    VaProfileInfo{VAProfileH264ConstrainedBaseline, "H264ConstrainedBaseline", AV_CODEC_ID_H264, 8,
                  420},
    VaProfileInfo{VAProfileH264Main, "H264Main", AV_CODEC_ID_H264, 8, 420},
    VaProfileInfo{VAProfileH264High, "H264High", AV_CODEC_ID_H264, 8, 420},
    VaProfileInfo{VAProfileHEVCMain, "HEVCMain", AV_CODEC_ID_HEVC, 8, 420},
    VaProfileInfo{VAProfileHEVCMain10, "HEVCMain10", AV_CODEC_ID_HEVC, 10, 420},
    VaProfileInfo{VAProfileHEVCMain12, "HEVCMain12", AV_CODEC_ID_HEVC, 12, 420},
    VaProfileInfo{VAProfileHEVCMain422_10, "HEVCMain422_10", AV_CODEC_ID_HEVC, 10, 422},
    VaProfileInfo{VAProfileHEVCMain422_12, "HEVCMain422_12", AV_CODEC_ID_HEVC, 12, 422},
    VaProfileInfo{VAProfileHEVCMain444, "HEVCMain444", AV_CODEC_ID_HEVC, 8, 444},
    VaProfileInfo{VAProfileHEVCMain444_10, "HEVCMain444_10", AV_CODEC_ID_HEVC, 10, 444},
    VaProfileInfo{VAProfileHEVCMain444_12, "HEVCMain444_12", AV_CODEC_ID_HEVC, 12, 444},
    VaProfileInfo{VAProfileHEVCSccMain, "HEVCSccMain", AV_CODEC_ID_HEVC, 8, 420},
    VaProfileInfo{VAProfileHEVCSccMain10, "HEVCSccMain10", AV_CODEC_ID_HEVC, 10, 420},
    VaProfileInfo{VAProfileHEVCSccMain444, "HEVCSccMain444", AV_CODEC_ID_HEVC, 8, 444},
    VaProfileInfo{VAProfileHEVCSccMain444_10, "HEVCSccMain444_10", AV_CODEC_ID_HEVC, 10, 444},
    VaProfileInfo{VAProfileVP9Profile0, "VP9Profile0", AV_CODEC_ID_VP9, 8, 420},
    VaProfileInfo{VAProfileVP9Profile1, "VP9Profile1", AV_CODEC_ID_VP9, 8, 444},
    // Profile 2 and 3 allow 10 and 12 bit; the RT formats say which the driver has.
    VaProfileInfo{VAProfileVP9Profile2, "VP9Profile2", AV_CODEC_ID_VP9, 10, 420},
    VaProfileInfo{VAProfileVP9Profile3, "VP9Profile3", AV_CODEC_ID_VP9, 10, 444},
    VaProfileInfo{VAProfileAV1Profile0, "AV1Profile0", AV_CODEC_ID_AV1, 10, 420},
    VaProfileInfo{VAProfileAV1Profile1, "AV1Profile1", AV_CODEC_ID_AV1, 10, 444},
    VaProfileInfo{VAProfileMPEG2Simple, "MPEG2Simple", AV_CODEC_ID_MPEG2VIDEO, 8, 420},
    VaProfileInfo{VAProfileMPEG2Main, "MPEG2Main", AV_CODEC_ID_MPEG2VIDEO, 8, 420},
    VaProfileInfo{VAProfileVC1Simple, "VC1Simple", AV_CODEC_ID_VC1, 8, 420},
    VaProfileInfo{VAProfileVC1Main, "VC1Main", AV_CODEC_ID_VC1, 8, 420},
    VaProfileInfo{VAProfileVC1Advanced, "VC1Advanced", AV_CODEC_ID_VC1, 8, 420},
    VaProfileInfo{VAProfileVP8Version0_3, "VP8Version0_3", AV_CODEC_ID_VP8, 8, 420},
};

std::string format_text(int chroma, int bit_depth) {
  std::string text = chroma == 420 ? "4:2:0" : chroma == 422 ? "4:2:2" : "4:4:4";
  return text + " " + std::to_string(bit_depth) + "-bit";
}

VaProfileNeed none(const std::string& what) {
  return {0, what + " has no VA-API decode profile"};
}

// As vaapi_decode.c: H.264 Constrained Baseline, Main and High only (8-bit 4:2:0). Baseline
// without constraint_set1 may use FMO/ASO, which no VA driver decodes: libavcodec refuses it
// unless AV_HWACCEL_FLAG_ALLOW_PROFILE_MISMATCH is set, and then may decode it wrongly.
VaProfileNeed h264_need(int profile, int bit_depth, int chroma) {
  if (profile == kH264Baseline)
    return {0,
            "H.264 Baseline without constraint_set1 (FMO/ASO possible): VA-API decodes it only "
            "with AV_HWACCEL_FLAG_ALLOW_PROFILE_MISMATCH"};
  if (bit_depth > 8 || chroma != 420) return none("H.264 " + format_text(chroma, bit_depth));
  switch (profile) {
    case kH264ConstrainedBaseline:
      return {VAProfileH264ConstrainedBaseline, {}};
    case kH264Main:
      return {VAProfileH264Main, {}};
    case kH264High:
    case kUnknownProfile:
      return {VAProfileH264High, {}};
    default:
      return none("H.264 profile " + std::to_string(profile));
  }
}

// Main/Main10/Main Still by profile; RExt (and an unknown profile) by chroma and depth, as
// vaapi_parse_rext_profile; SCC likewise among the SCC profiles.
VaProfileNeed hevc_need(int profile, int bit_depth, int chroma) {
  bool basic = profile == kHevcMain || profile == kHevcMain10 || profile == kHevcMainStill;
  if (basic || (profile == kUnknownProfile && chroma == 420 && bit_depth <= 10)) {
    if (chroma != 420 || bit_depth > 10) return none("HEVC " + format_text(chroma, bit_depth));
    return {bit_depth > 8 ? VAProfileHEVCMain10 : VAProfileHEVCMain, {}};
  }
  if (profile == kHevcScc) {
    if (bit_depth > 10 || chroma == 422) return none("HEVC SCC " + format_text(chroma, bit_depth));
    if (chroma == 444)
      return {bit_depth > 8 ? VAProfileHEVCSccMain444_10 : VAProfileHEVCSccMain444, {}};
    return {bit_depth > 8 ? VAProfileHEVCSccMain10 : VAProfileHEVCSccMain, {}};
  }
  if (profile != kHevcRext && profile != kUnknownProfile)
    return none("HEVC profile " + std::to_string(profile));
  if (bit_depth > 12) return none("HEVC " + format_text(chroma, bit_depth));
  bool twelve = bit_depth > 10;
  if (chroma == 444)
    return {twelve          ? VAProfileHEVCMain444_12
            : bit_depth > 8 ? VAProfileHEVCMain444_10
                            : VAProfileHEVCMain444,
            {}};
  if (chroma == 422) return {twelve ? VAProfileHEVCMain422_12 : VAProfileHEVCMain422_10, {}};
  return {twelve          ? VAProfileHEVCMain12
          : bit_depth > 8 ? VAProfileHEVCMain10
                          : VAProfileHEVCMain,
          {}};
}

// VP9's profile is its depth and chroma: 0 = 8-bit 4:2:0, 1 = 8-bit 4:2:2/4:4:4, 2 = 10/12-bit
// 4:2:0, 3 = 10/12-bit 4:2:2/4:4:4.
VaProfileNeed vp9_need(int bit_depth, int chroma) {
  if (bit_depth > 12) return none("VP9 " + format_text(chroma, bit_depth));
  if (chroma == 420) return {bit_depth > 8 ? VAProfileVP9Profile2 : VAProfileVP9Profile0, {}};
  return {bit_depth > 8 ? VAProfileVP9Profile3 : VAProfileVP9Profile1, {}};
}

// AV1 Main is 8/10-bit 4:2:0, High adds 4:4:4; Professional (12-bit, 4:2:2) has no VA profile.
VaProfileNeed av1_need(int profile, int bit_depth, int chroma) {
  if (bit_depth > 10 || chroma == 422) return none("AV1 " + format_text(chroma, bit_depth));
  if (chroma == 444 || profile == kAv1High) return {VAProfileAV1Profile1, {}};
  return {VAProfileAV1Profile0, {}};
}

VaProfileNeed legacy_need(AVCodecID codec, int profile, int bit_depth, int chroma) {
  std::string name = avcodec_get_name(codec);
  if (bit_depth > 8 || chroma != 420) return none(name + " " + format_text(chroma, bit_depth));
  switch (codec) {
    case AV_CODEC_ID_MPEG2VIDEO:
      if (profile == kMpeg2Simple) return {VAProfileMPEG2Simple, {}};
      if (profile == kMpeg2Main || profile == kUnknownProfile) return {VAProfileMPEG2Main, {}};
      return none("MPEG-2 profile " + std::to_string(profile));  // 4:2:2, High, SNR, Spatial
    case AV_CODEC_ID_VC1:
    case AV_CODEC_ID_WMV3:
      if (profile == kVc1Simple) return {VAProfileVC1Simple, {}};
      if (profile == kVc1Main) return {VAProfileVC1Main, {}};
      return {VAProfileVC1Advanced, {}};  // Complex and Advanced, as vaapi_decode.c
    case AV_CODEC_ID_VP8:
      return {VAProfileVP8Version0_3, {}};
    default:
      return none(name);
  }
}

// The formats each decoder's get_format list offers VA-API for, by libavcodec version:
// - FFmpeg 5.1 (libavcodec 59) libavcodec/hevcdec.c get_format(): AV_PIX_FMT_VAAPI under
//   YUV420P/YUVJ420P, YUV420P10 and YUV422P/YUV422P10LE only: no 4:4:4, no 12-bit.
// - FFmpeg 5.1 libavcodec/vp9.c get_format(): VAAPI under the 4:2:0 formats only, so VP9
//   profiles 1 and 3 decode in software.
// - libavcodec/av1dec.c get_pixel_format() (5.1 and 7.1): VAAPI under YUV420P and YUV420P10.
// FFmpeg 7.1 (libavcodec 61, the Debian 13 image) offers VAAPI for HEVC 4:4:4 and 12-bit and
// VP9 4:4:4; 6.x is taken as 5.1 (not checked: at worst a software decode that could have
// been on the GPU).
constexpr unsigned kLavc61 = AV_VERSION_INT(61, 0, 0);

}  // namespace

std::string vaapi_get_format_refusal(AVCodecID codec, int bit_depth, int chroma,
                                     unsigned lavc_version) {
  bool before_61 = lavc_version < kLavc61;
  bool offered = true;
  switch (codec) {
    case AV_CODEC_ID_HEVC:
      offered = !before_61 || (chroma != 444 && bit_depth <= 10);
      break;
    case AV_CODEC_ID_VP9:
      offered = chroma == 420 || (!before_61 && chroma == 444);
      break;
    case AV_CODEC_ID_AV1:
      offered = chroma == 420 && bit_depth <= 10;
      break;
    default:
      break;
  }
  if (offered) return {};
  return "libavcodec " + std::to_string(AV_VERSION_MAJOR(lavc_version)) + "'s " +
         avcodec_get_name(codec) + " decoder never offers VA-API for " +
         format_text(chroma, bit_depth) + " (get_format)";
}

std::optional<VaProfileInfo> va_profile_info(int va_profile) {
  for (const VaProfileInfo& info : kVaProfiles)
    if (info.va_profile == va_profile) return info;
  return std::nullopt;
}

RtFormatReach rt_format_reach(uint32_t rt_formats) {
  struct Bit {
    uint32_t bit;
    int chroma;
    int depth;
  };
  static constexpr std::array kBits{
      Bit{VA_RT_FORMAT_YUV420, 420, 8},     Bit{VA_RT_FORMAT_YUV422, 422, 8},
      Bit{VA_RT_FORMAT_YUV444, 444, 8},     Bit{VA_RT_FORMAT_YUV420_10, 420, 10},
      Bit{VA_RT_FORMAT_YUV422_10, 422, 10}, Bit{VA_RT_FORMAT_YUV444_10, 444, 10},
      Bit{VA_RT_FORMAT_YUV420_12, 420, 12}, Bit{VA_RT_FORMAT_YUV422_12, 422, 12},
      Bit{VA_RT_FORMAT_YUV444_12, 444, 12},
  };
  RtFormatReach reach;
  for (const Bit& bit : kBits) {
    if (!(rt_formats & bit.bit)) continue;
    reach.bit_depth = std::max(reach.bit_depth, bit.depth);
    reach.chroma = std::max(reach.chroma, bit.chroma);
  }
  return reach;
}

VaProfileNeed va_profile_needed(AVCodecID codec, int codec_profile, int bit_depth, int chroma) {
  switch (codec) {
    case AV_CODEC_ID_H264:
      return h264_need(codec_profile, bit_depth, chroma);
    case AV_CODEC_ID_HEVC:
      return hevc_need(codec_profile, bit_depth, chroma);
    case AV_CODEC_ID_VP9:
      return vp9_need(bit_depth, chroma);
    case AV_CODEC_ID_AV1:
      return av1_need(codec_profile, bit_depth, chroma);
    default:
      return legacy_need(codec, codec_profile, bit_depth, chroma);
  }
}

// ---- decode_caps.h ----

int chroma_of(AVPixelFormat format) {
  const AVPixFmtDescriptor* desc = av_pix_fmt_desc_get(format);
  if (!desc || desc->nb_components < 3) return 420;
  if (desc->log2_chroma_w == 0 && desc->log2_chroma_h == 0) return 444;
  return desc->log2_chroma_h == 0 ? 422 : 420;
}

namespace {

const DecodeProfile* find_profile(const HwDevice& device, int va_profile) {
  for (const DecodeProfile& profile : device.decode_profiles)
    if (profile.va_profile == va_profile) return &profile;
  return nullptr;
}

std::string size_text(int width, int height) {
  return std::to_string(width) + "x" + std::to_string(height);
}

}  // namespace

std::string decode_refusal(const HwDevice& device, const VideoInfo& video) {
  std::string codec =
      video.codec_name + " " + format_text(chroma_of(video.pix_fmt), video.bit_depth);
  if (device.decode_profiles.empty())  // not probed per profile: codec and depth decide
    return device.decodes(video.codec, video.bit_depth) ? std::string() : "cannot decode " + codec;
  VaProfileNeed need = va_profile_needed(video.codec, video.codec_profile, video.bit_depth,
                                         chroma_of(video.pix_fmt));
  if (!need.refusal.empty()) return need.refusal;
  const DecodeProfile* profile = find_profile(device, need.va_profile);
  std::string name(va_profile_info(need.va_profile)->name);
  if (!profile) return "no VA profile " + name + " for " + codec;
  if (video.bit_depth > profile->bit_depth)
    return name + " decodes up to " + std::to_string(profile->bit_depth) + "-bit, not " +
           std::to_string(video.bit_depth);
  if (profile->max_width &&
      (video.width > profile->max_width || video.height > profile->max_height))
    return size_text(video.width, video.height) + " exceeds the " + name + " decoder's maximum " +
           size_text(profile->max_width, profile->max_height);
  // The device has it; this libavcodec may still never offer VA-API for it.
  if (device.backend == BackendKind::kVaapi)
    return vaapi_get_format_refusal(video.codec, video.bit_depth, chroma_of(video.pix_fmt),
                                    LIBAVCODEC_VERSION_INT);
  return {};
}

std::string encode_refusal(const HwDevice& device, AVCodecID codec, int width, int height) {
  std::string name = avcodec_get_name(codec);
  if (!device.encodes(codec)) {
    auto why = device.encode_unavailable.find(codec);
    return "cannot encode " + name +
           (why == device.encode_unavailable.end() ? std::string() : " (" + why->second + ")");
  }
  const EncodeEntrypoints& encode = device.encode.at(codec);
  if (encode.max_width && (width > encode.max_width || height > encode.max_height))
    return size_text(width, height) + " exceeds the " + name + " encoder's maximum " +
           size_text(encode.max_width, encode.max_height);
  return {};
}

}  // namespace tc
