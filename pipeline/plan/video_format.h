// The format of each video output: bit depth, chroma, the encoder's pixel format and profile,
// the colour tags it is written with, and whether an HDR source is kept (10-bit, tags, mastering
// metadata) or tone-mapped to SDR BT.709 8-bit, and where that runs.
#pragma once

#include <string>

#include "pipeline/hw/backends.h"
#include "pipeline/plan/plan.h"

namespace tc {

// What deciding an output's format needs to know.
struct FormatChoice {
  const VideoInfo& video;
  const BackendDesc& backend;
  bool on_device = false;  // the job's frames are scaled on the backend's device
  const OutputSpec& spec;
  const VideoEncodePlan& encode;  // its encoder already chosen
  // The job's device (null in software): what its encoders and VPP can, as discovered.
  const HwDevice* device = nullptr;
  // For players: a package's rendition, an MP4 or WebM file. Those are 4:2:0 (H.264 High, HEVC
  // Main or Main 10): Safari and hardware decoders refuse High 4:2:2 / 4:4:4 and HEVC Rext.
  // Matroska and MPEG-TS files keep the source's chroma (mezzanines, contribution feeds).
  bool for_players = false;
};

// Why the device's encoder for the output's codec cannot write 10-bit although the backend's
// can (Skylake's HEVC is Main only); empty when it can, or when the device's depth was not
// probed.
std::string device_ten_bit_refusal(const HwDevice& device, const BackendDesc& backend,
                                   VideoCodec codec, bool low_power);

// Why frames cannot leave the device's VPP in 10 bits (Gen9's writes no P010), so that every
// device branch, which always passes a scaler, is 8-bit there; empty when it can or unknown.
std::string device_vpp_ten_bit_refusal(const HwDevice& device);
// Why frames decoded in memory are converted to 8 bits before the upload: the device's VPP
// cannot read 10-bit (P010) frames (Broadwell) or write them (Gen9), so the scalers would
// make 8 bits of them anyway; empty when 10-bit frames are worth uploading, or unknown.
std::string device_ten_bit_upload_refusal(const HwDevice& device);

// The output's format; an error when the spec asks for what the encoder cannot write
// (--hdr keep where it has no 10-bit profile).
Result<VideoFormatPlan> plan_video_format(const FormatChoice& choice);

// The invariant: 8-bit video is never tagged PQ, HLG or BT.2020 (players would show wrong
// colours). kInternal names the output: a plan that breaks it is a planner bug.
Status check_format(const VideoFormatPlan& format, const std::string& output);

// The planar software format of a depth and chroma: yuv420p, yuv420p10le, yuv444p, ...
AVPixelFormat planar_format(int bit_depth, ChromaFormat chroma);
// The software format of device frames that hold `bit_depth` (nv12 / p010 on VA-API and cuda).
AVPixelFormat device_format(const BackendDesc& backend, int bit_depth);
// The pixel format the output's encoder is fed.
AVPixelFormat encoder_pixel_format(const FormatChoice& choice, const VideoFormatPlan& format);
bool encoder_takes(std::string_view encoder, AVPixelFormat format);
// The software tone-map (HDR) or gamut conversion (BT.2020 SDR) to SDR BT.709 (a format filter
// follows it):
// zscale + tonemap where this FFmpeg has zscale, else colorspace (no tone curve: clips).
std::string software_to_sdr(const ColorTags& source);
// The format the software conversion to SDR ends in before the encoder's `encoder_format`: the
// planar YUV of the output's depth and chroma, or "" where that is the encoder's format already.
// zscale writes planar formats only (FFmpeg's vf_zscale.c lists no nv12 or p010), so before nv12
// its last stage stayed in gbrpf32le and swscale made the YUV: far too bright (issue 43).
std::string sdr_conversion_end(AVPixelFormat encoder_format, const VideoFormatPlan& format);

}  // namespace tc
