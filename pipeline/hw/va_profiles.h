// What each VAProfile is (codec, bit depth, chroma) and which one libavcodec's VA-API hwaccel
// asks the driver for, given a stream: the map of libavcodec/vaapi_decode.c, as data. Internal
// to pipeline/hw; the planner asks decode_caps.h.
#pragma once

#include <optional>
#include <string>
#include <string_view>

extern "C" {
#include <libavcodec/codec_id.h>
}

namespace tc {

struct VaProfileInfo {
  int va_profile;
  std::string_view name;  // "HEVCMain10"
  AVCodecID codec;
  int bit_depth;  // the highest the profile allows
  int chroma;     // 420, 422, 444: the widest it allows
};

// The profile's entry, or nullopt for profiles we do not handle (JPEG, newer than this libva).
std::optional<VaProfileInfo> va_profile_info(int va_profile);

// The highest bit depth and widest chroma of VA_RT_FORMAT_* bits; {0, 0} when none we know.
struct RtFormatReach {
  int bit_depth = 0;
  int chroma = 0;
};
RtFormatReach rt_format_reach(uint32_t rt_formats);

// The VAProfile the hwaccel needs for a stream, or a reason it has none ("H.264 High 4:2:2 has
// no VA-API profile"). codec_profile is AVCodecParameters.profile (-99 = unknown).
struct VaProfileNeed {
  int va_profile = 0;
  std::string refusal;  // non-empty when no VA profile can decode the stream
};
VaProfileNeed va_profile_needed(AVCodecID codec, int codec_profile, int bit_depth, int chroma);

// Why libavcodec `lavc_version` (LIBAVCODEC_VERSION_INT) never offers AV_PIX_FMT_VAAPI to
// get_format for a stream of this codec, depth and chroma, whatever the driver has; empty
// when it does. Without the offer the decoder silently decodes in software.
std::string vaapi_get_format_refusal(AVCodecID codec, int bit_depth, int chroma,
                                     unsigned lavc_version);

}  // namespace tc
