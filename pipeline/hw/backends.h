// Backends are data (as mpv's hwdec table): per backend its device type, hw pixel format, the
// filters that scale and move frames, its encoder per codec and how those encoders are driven;
// and beside them the software encoders, one entry each. The planner decides what an encoder
// gets from these tables, never from its name: adding a backend (QSV) is a table entry and a
// device opener.
#pragma once

#include <array>
#include <string>
#include <string_view>

extern "C" {
#include <libavcodec/codec_id.h>
#include <libavutil/hwcontext.h>
#include <libavutil/pixfmt.h>
}

#include "pipeline/spec/job_spec.h"

namespace tc {

// The option that carries constant quality for one codec's encoder, and the top of its scale.
// The job's quality is on the H.264/HEVC QP scale (0..51, lower is better); it is rescaled
// linearly to 0..scale_max, so QP 24 is quantiser index 120 of 255 for VP9 and AV1.
struct QualityOption {
  std::string_view name;  // a private option ("qp") or a generic one ("global_quality")
  int scale_max = 51;

  int value_for(int qp) const;  // qp on 0..51 -> this option's value, clamped to its scale
};

// One libavfilter filter as a table gives it: its name and its options apart, so that a planner
// reads the name ("scale_vaapi") instead of cutting it back out of the text.
struct FilterDesc {
  std::string_view name;     // empty = none
  std::string_view options;  // "w=%W:h=%H:format=%F"; empty = the filter's defaults

  bool empty() const { return name.empty(); }
  std::string text() const;  // "name=options", or "name" where it has no options
};

// An encoder option and the value the plan gives it.
struct OptionValue {
  std::string_view name;
  std::string_view value;
};

// What an encoder is given in a package, where a keyframe is forced (pict_type I) at every
// segment boundary: that each forced one is an IDR starting a closed GOP, and that no
// scene-cut keyframe comes between them (plan/package_plan.h).
struct KeyframeOptions {
  std::array<OptionValue, 2> options = {};  // in order; empty names are none
  bool keyint_min = false;                  // keyint_min = the segment's GOP, in frames
  std::string_view params;  // appended to the encoder's parameters option (SwEncoderDesc)
};

// How a hardware encoder is driven: which options say what, in the order FFmpeg's CLI would
// pass them.
struct HwEncoderDesc {
  // Chosen from the probed entrypoints ("1" when only the low-power one exists); empty = none.
  std::string_view low_power_option;
  std::string_view preset_option;  // takes the job's --preset; empty = the encoder has none
  std::string_view default_preset;
  std::string_view rate_option;   // names the rate-control mode ...
  std::string_view quality_mode;  // ... constant quality (with quality_options)
  std::string_view cbr_mode;
  std::string_view vbr_mode;
  int default_qp = 0;  // on the QP scale
  // Per codec, in the order of BackendDesc::encoders.
  std::array<QualityOption, 4> quality_options;

  const QualityOption& quality_for(VideoCodec codec) const;  // codec is not kCopy
  // Frames the encoder keeps in flight before it returns them (0 = no such option).
  int async_depth = 0;
  // B-frames it uses when the job does not say: their reorder window holds frames too.
  int default_b_frames = 0;
  // Per codec, in the order of BackendDesc::encoders.
  std::array<KeyframeOptions, 4> keyframes = {};
};

// The syntax in which an encoder's parameters option takes HDR10 static metadata
// (plan/hdr_params.h); kNone: it takes none there.
enum class HdrParamsSyntax { kNone, kX265, kSvtAv1 };

// A software encoder: its options in the order FFmpeg's CLI would pass them (crf, the CBR
// option, the fixed ones, the preset, the fixed ones after it) and what it can do.
struct SwEncoderDesc {
  VideoCodec codec;
  std::string_view name;
  int default_crf = 0;          // constant quality when the job sets none
  OptionValue cbr_option = {};  // what makes its bitrate mode CBR (the rates alone elsewhere)
  OptionValue before_preset = {};
  std::string_view preset_option;  // takes the job's --preset
  std::string_view default_preset;
  OptionValue after_preset = {};
  // Its parameters option ("x265-params"), and what HDR10 metadata it takes there.
  std::string_view params_option;
  HdrParamsSyntax hdr_params = HdrParamsSyntax::kNone;
  KeyframeOptions keyframes;
  // Its chunks of whole GOPs, encoded apart, concatenate into one valid stream (checked by the
  // GOP-parallel tests for this encoder only: plan/gop_parallel.h).
  bool gop_parallel = false;
  // Its AVX-512 mbtree code misreads rows of some widths (plan/x264_avx512.h).
  bool avx512_misreads = false;
  // Codes an interlaced source's frames as fields when not deinterlaced.
  bool codes_fields = false;
};

struct BackendDesc {
  BackendKind kind;
  std::string_view name;
  AVHWDeviceType device_type;  // AV_HWDEVICE_TYPE_NONE for software
  AVPixelFormat hw_format;     // AV_PIX_FMT_NONE for software
  // The software format of device frames: what the scaler writes, `download` yields and the
  // hardware encoders take.
  AVPixelFormat sw_format;
  FilterDesc scale;           // the scale filter; "%W" and "%H" stand for the target size
  std::string_view upload;    // filters that bring a software frame to the device
  std::string_view download;  // filters that bring a device frame back to memory
  bool decodes_on_device;     // the decoder can output device frames (hwaccel)
  // The device filters' output pools cannot grow: the plan sizes them for every frame held
  // downstream, through extra_hw_frames on each scaler and deinterlacer (the decoder's is sized
  // wherever it decodes on the device: extra_hw_frames is ignored where its pool grows).
  bool fixed_pools;
  // What `auto` calls a device of this backend ("Intel GPU"); empty = auto never picks it.
  std::string_view auto_label;
  std::string_view device_noun;  // for errors: "no usable <noun>"
  // Encoders by codec (h264, hevc, av1, vp9); empty where the backend has none.
  std::array<std::string_view, 4> encoders;
  HwEncoderDesc encoder;
  // `scale`, `upload` and `download` write "%F" for the software format of the frames they give:
  // sw_format for 8-bit output, ten_bit_format for 10-bit.
  AVPixelFormat ten_bit_format = AV_PIX_FMT_YUV420P10LE;
  // The scaler converts to %F on the device (else 10 -> 8-bit happens after the download).
  bool scale_converts = false;
  // Scalers without a filter that widens with the ratio alias on large downscales: those are
  // cascaded in steps of at most this ratio (0 = any ratio in one step).
  int scale_max_ratio = 0;
  // Appended to `scale` where a branch keeps the size and format of the frames it scales and
  // its output holds them (a download on the output's thread): the scaler then gives frames of
  // its own pool, never the decoder's. Empty where the scaler always does.
  std::string_view scale_own_frames;
  // hwupload's pool must be fixed (QSV's runtime needs its surfaces up front); elsewhere it
  // grows on demand, and an extra_hw_frames would fix it (vf_hwupload.c, 5.1 and 7.1).
  bool fixed_upload_pool = false;
  // HDR10 (PQ) to SDR BT.709 8-bit on the device; empty = in software after the download.
  FilterDesc tonemap;
  // The device's deinterlacer, for every frame (--deinterlace on) and for frames flagged
  // interlaced (auto); empty = bwdif in software, before any upload.
  FilterDesc deinterlace;
  FilterDesc deinterlace_auto;
  // Per codec (h264, hevc, av1, vp9): its hardware encoder writes 10-bit (Main10, profile 2).
  std::array<bool, 4> ten_bit_encoders = {};
  // Pads device frames to %W x %H, the picture centred (a refit graph's letterbox); empty = the
  // backend has none, and the pad runs in memory. Used only where this libavfilter has it.
  FilterDesc pad;
  // Turns device frames upright, by index the clockwise quarter turns (1..3; plan/orientation.h);
  // empty = not on the device: frames turn in memory (transpose) before any upload. Used only
  // where this libavfilter has the filter.
  std::array<FilterDesc, 4> turns = {};
  // Its jobs may run their stages on threads (exec/branch_lane.h); false keeps them on one.
  bool stage_threads = true;
  // The least extra_hw_frames a scaler is given where the plan sets one: a set value replaces
  // the filter's default pool, so below this the pool would be smaller than unset.
  int scale_min_extra_frames = 0;

  std::string_view encoder_for(VideoCodec codec) const;
  bool encodes_ten_bit(VideoCodec codec) const;
  bool on_device() const { return device_type != AV_HWDEVICE_TYPE_NONE; }
  // Frames a hardware encoder of this backend holds from its input pool: in flight plus the
  // B-frame reorder window plus the one being encoded; 0 where pools grow on demand.
  int encoder_held_frames(int b_frames) const;
};

const BackendDesc& backend_desc(BackendKind kind);
// Every backend, in the order `auto` prefers them.
const std::array<BackendDesc, 5>& backends();
// The software encoder of `codec` (not kCopy).
const SwEncoderDesc& software_encoder(VideoCodec codec);
// Every software encoder, in the order of BackendDesc::encoders.
const std::array<SwEncoderDesc, 4>& software_encoders();
// The keyframe options of `codec`'s encoder on `backend` (kSoftware: the software encoder's).
const KeyframeOptions& keyframe_options(BackendKind backend, VideoCodec codec);

AVCodecID codec_id(VideoCodec codec);  // AV_CODEC_ID_NONE for kCopy

}  // namespace tc
