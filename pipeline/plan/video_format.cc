#include "pipeline/plan/video_format.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavfilter/avfilter.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
}

#include "pipeline/core/compat.h"

namespace tc {
namespace {

bool has_ten_bit_profile(VideoCodec codec) {
  return codec == VideoCodec::kHevc || codec == VideoCodec::kAv1 || codec == VideoCodec::kVp9;
}

// The encoder can write 10-bit: a hardware encoder by the backend's table and the depth the
// device's entrypoint was found to encode, a software one by its pixel formats.
bool writes_ten_bit(const FormatChoice& choice) {
  // A device encoder's frames come from a VPP scaler: it needs a VPP that writes 10 bits.
  if (choice.encode.hw_frames)
    return choice.backend.encodes_ten_bit(choice.spec.codec) &&
           (!choice.device || (device_ten_bit_refusal(*choice.device, choice.backend,
                                                      choice.spec.codec, choice.encode.low_power)
                                   .empty() &&
                               device_vpp_ten_bit_refusal(*choice.device).empty()));
  return encoder_takes(choice.encode.encoder, AV_PIX_FMT_YUV420P10LE);
}

// --hdr auto keeps HDR only where the codec has a 10-bit profile players expect (not H.264).
Result<bool> keeps_hdr(const FormatChoice& choice) {
  const OutputSpec& spec = choice.spec;
  bool ten_bit = writes_ten_bit(choice);
  switch (spec.hdr) {
    case HdrMode::kTonemap:
      return false;
    case HdrMode::kKeep:
      if (!ten_bit)
        return Status::of_field(Code::kUnsupported, spec.path,
                                "--hdr keep needs 10-bit output, and " + choice.encode.encoder +
                                    " cannot write " + std::string(name_of(spec.codec)) +
                                    " in 10 bits; use --hdr tonemap, or --codec hevc, av1 or vp9");
      return true;
    case HdrMode::kAuto:
      break;
  }
  return ten_bit && has_ten_bit_profile(spec.codec);
}

ChromaFormat output_chroma(const FormatChoice& choice) {
  // Device surfaces are 4:2:0 (nv12 / p010): 4:2:2 and 4:4:4 are converted before the upload.
  if (choice.on_device || choice.for_players || choice.video.chroma == ChromaFormat::kOther)
    return ChromaFormat::k420;
  return choice.video.chroma;
}

std::string profile_name(VideoCodec codec, int depth, ChromaFormat chroma) {
  bool ten = depth > 8;
  switch (codec) {
    case VideoCodec::kH264:
      if (chroma == ChromaFormat::k444) return "High 4:4:4 Predictive";
      if (chroma == ChromaFormat::k422) return "High 4:2:2";
      return ten ? "High 10" : "High";
    case VideoCodec::kHevc:
      if (chroma != ChromaFormat::k420) return "Rext";
      return ten ? "Main 10" : "Main";
    case VideoCodec::kVp9:
      if (chroma != ChromaFormat::k420) return ten ? "Profile 3" : "Profile 1";
      return ten ? "Profile 2" : "Profile 0";
    case VideoCodec::kAv1:
      if (chroma == ChromaFormat::k444) return "High";
      if (chroma == ChromaFormat::k422) return "Professional";
      return "Main";
    case VideoCodec::kCopy:
      break;
  }
  return "";
}

ColorTags bt709() {
  return {AVCOL_PRI_BT709, AVCOL_TRC_BT709, AVCOL_SPC_BT709, AVCOL_RANGE_MPEG};
}

// The device's VPP has no HDR tone mapping (discovery found none: before Ice Lake, EHL/JSL).
bool device_lacks_tonemap(const FormatChoice& choice) {
  return choice.device && choice.device->can_tonemap == false;
}

// The conversion to SDR runs on VA-API's VPP for PQ (tonemap_vaapi reads the frames' mastering
// display metadata; it has no HLG curve) where the device has it, else in software after the
// download.
bool to_sdr_on_device(const FormatChoice& choice) {
  return choice.on_device && choice.video.color.transfer == AVCOL_TRC_SMPTE2084 &&
         !choice.backend.tonemap.empty() && !device_lacks_tonemap(choice);
}

std::string to_sdr_where(const FormatChoice& choice) {
  // tonemap_vaapi fails on a frame without mastering display metadata: the executor gives such
  // frames the container's, else a common grading display's (ensure_mastering_display).
  if (to_sdr_on_device(choice))
    return std::string(choice.backend.tonemap.name) +
           " on the device (mastering display: the frames', else " +
           (choice.video.mastering_display
                ? "the container's"
                : "assumed P3 D65 1000 cd/m2: the source declares none") +
           ")";
  bool zscale = avfilter_get_by_name("zscale") != nullptr;
  if (!choice.video.color.hdr())
    return std::string(zscale ? "zscale" : "colorspace") + " (BT.2020 to BT.709) on the cpu";
  std::string where = "zscale+tonemap (hable) on the cpu";
  if (choice.on_device && !choice.backend.tonemap.empty() && device_lacks_tonemap(choice))
    where += " (this GPU's VPP has no HDR tone mapping)";
  return where;
}

// The source's colour properties its file leaves unset, as options of the first converting
// filter (zscale's "pin=", colorspace's "iprimaries="), each led by ':'. zimg refuses to convert
// from an unknown primaries, transfer or matrix ("no path between colorspaces": exit 70), and
// such files are common: FFmpeg 7.1's CLI tags a libx265 stream with the matrix alone unless the
// frames carry the rest. A wide source is BT.2020 (that is what made it wide), and an unset
// transfer is SDR's: BT.2020's own SDR curve is BT.709's.
std::string unset_source_tags(const ColorTags& source, bool zscale) {
  std::string options;
  if (source.primaries == AVCOL_PRI_UNSPECIFIED)
    options += zscale ? ":pin=bt2020" : ":iprimaries=bt2020";
  if (source.transfer == AVCOL_TRC_UNSPECIFIED) options += zscale ? ":tin=bt709" : ":itrc=bt709";
  if (source.matrix == AVCOL_SPC_UNSPECIFIED)
    options += zscale ? ":min=bt2020nc" : ":ispace=bt2020ncl";
  return options;
}

}  // namespace

std::string device_ten_bit_refusal(const HwDevice& device, const BackendDesc& backend,
                                   VideoCodec codec, bool low_power) {
  auto found = device.encode.find(codec_id(codec));
  if (found == device.encode.end() || !backend.encodes_ten_bit(codec)) return {};
  int depth = found->second.bit_depth(low_power);
  if (depth == 0 || depth >= 10) return {};
  return "this GPU's " + std::string(backend.encoder_for(codec)) + " encodes " +
         std::to_string(depth) + "-bit only (no 10-bit " + std::string(name_of(codec)) +
         " profile on its " + (low_power ? "low-power" : "full") + " entrypoint)";
}

std::string device_vpp_ten_bit_refusal(const HwDevice& device) {
  if (device.vpp_writes_ten_bit != false) return {};
  return "this GPU's VPP writes no 10-bit frames (P010)";
}

std::string device_ten_bit_upload_refusal(const HwDevice& device) {
  if (device.vpp_reads_ten_bit == false) return "this GPU's VPP reads no 10-bit frames (P010)";
  return device_vpp_ten_bit_refusal(device);
}

bool encoder_takes(std::string_view encoder, AVPixelFormat format) {
  const AVCodec* codec = avcodec_find_encoder_by_name(std::string(encoder).c_str());
  const AVPixelFormat* formats = av::encoder_pixel_formats(codec);
  if (!formats) return false;
  for (const AVPixelFormat* f = formats; *f != AV_PIX_FMT_NONE; ++f)
    if (*f == format) return true;
  return false;
}

AVPixelFormat planar_format(int bit_depth, ChromaFormat chroma) {
  bool ten = bit_depth > 8;
  switch (chroma) {
    case ChromaFormat::k422:
      return ten ? AV_PIX_FMT_YUV422P10LE : AV_PIX_FMT_YUV422P;
    case ChromaFormat::k444:
      return ten ? AV_PIX_FMT_YUV444P10LE : AV_PIX_FMT_YUV444P;
    default:
      return ten ? AV_PIX_FMT_YUV420P10LE : AV_PIX_FMT_YUV420P;
  }
}

AVPixelFormat device_format(const BackendDesc& backend, int bit_depth) {
  return bit_depth > 8 ? backend.ten_bit_format : backend.sw_format;
}

AVPixelFormat encoder_pixel_format(const FormatChoice& choice, const VideoFormatPlan& format) {
  AVPixelFormat arriving = device_format(choice.backend, format.bit_depth);
  if (choice.encode.hw_frames) return arriving;
  // Frames downloaded in a format the encoder takes need no conversion (x264 takes nv12).
  if (choice.on_device && encoder_takes(choice.encode.encoder, arriving)) return arriving;
  AVPixelFormat wanted = planar_format(format.bit_depth, format.chroma);
  if (encoder_takes(choice.encode.encoder, wanted)) return wanted;
  AVPixelFormat four_two_zero = planar_format(format.bit_depth, ChromaFormat::k420);
  if (encoder_takes(choice.encode.encoder, four_two_zero)) return four_two_zero;
  return AV_PIX_FMT_YUV420P;
}

std::string software_to_sdr(const ColorTags& source) {
  bool zscale = avfilter_get_by_name("zscale") != nullptr;
  if (!source.hdr())
    return zscale
               ? "zscale=p=bt709:t=bt709:m=bt709:r=tv" + unset_source_tags(source, true)
               : "colorspace=all=bt709:range=tv:format=yuv420p" + unset_source_tags(source, false);
  if (!zscale) return "";
  // Linear light, BT.709 primaries, a tone curve to SDR range, then BT.709 transfer and matrix.
  return "zscale=t=linear:npl=100" + unset_source_tags(source, true) +
         ",format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,"
         "zscale=t=bt709:m=bt709:r=tv";
}

std::string sdr_conversion_end(AVPixelFormat encoder_format, const VideoFormatPlan& format) {
  AVPixelFormat planar = planar_format(format.bit_depth, format.chroma);
  return planar == encoder_format ? "" : "format=" + std::string(av_get_pix_fmt_name(planar));
}

Result<VideoFormatPlan> plan_video_format(const FormatChoice& choice) {
  const VideoInfo& video = choice.video;
  VideoFormatPlan format;
  format.chroma = output_chroma(choice);
  bool ten_bit = writes_ten_bit(choice);
  if (video.color.hdr()) {
    TC_ASSIGN_OR_RETURN(bool keep, keeps_hdr(choice));
    format.bit_depth = keep ? 10 : 8;
    format.hdr_metadata = keep;
  } else {
    // SDR keeps its depth where the codec's players expect 10-bit (not H.264's High 10).
    format.bit_depth =
        video.bit_depth > 8 && ten_bit && has_ten_bit_profile(choice.spec.codec) ? 10 : 8;
  }
  format.to_sdr = format.bit_depth == 8 && video.color.wide();
  format.color = format.to_sdr ? bt709() : video.color;
  if (format.to_sdr) {
    format.to_sdr_on_device = to_sdr_on_device(choice);
    format.to_sdr_where = to_sdr_where(choice);
    if (video.color.hdr() && avfilter_get_by_name("zscale") == nullptr && !format.to_sdr_on_device)
      return Status::of_field(Code::kUnsupported, choice.spec.path,
                              "tone-mapping HDR to SDR in software needs the zscale filter, "
                              "which this FFmpeg lacks");
  }
  format.profile = profile_name(choice.spec.codec, format.bit_depth, format.chroma);
  TC_RETURN_IF_ERROR(check_format(format, choice.spec.path));
  return format;
}

Status check_format(const VideoFormatPlan& format, const std::string& output) {
  if (format.bit_depth <= 8 && format.color.wide())
    return {Code::kInternal, output + ": the plan would write 8-bit video tagged " +
                                 std::string(av_color_transfer_name(format.color.transfer)) + "/" +
                                 av_color_primaries_name(format.color.primaries) +
                                 " (HDR or BT.2020): refused"};
  return Status::ok();
}

}  // namespace tc
