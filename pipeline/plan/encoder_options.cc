#include "pipeline/plan/encoder_options.h"

namespace tc {
namespace {

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

bool constant_quality(const OutputSpec& output) {
  return output.rate_control == RateControl::kDefault ||
         output.rate_control == RateControl::kQuality;
}

void add_hw_rate_control(const OutputSpec& output, const HwEncoderDesc& encoder, Options& options) {
  std::string option(encoder.rate_option);
  if (constant_quality(output)) {
    options.emplace_back(option, encoder.quality_mode);
    const QualityOption& quality = encoder.quality_for(output.codec);
    int qp = output.quality >= 0 ? output.quality : encoder.default_qp;
    options.emplace_back(quality.name, std::to_string(quality.value_for(qp)));
    return;
  }
  // An empty mode: the encoder takes CBR or VBR from the rates apply_bitrate set (QSV).
  std::string_view mode =
      output.rate_control == RateControl::kCbr ? encoder.cbr_mode : encoder.vbr_mode;
  if (!mode.empty()) options.emplace_back(option, mode);
}

// The VA_RC_* mode a job's rate control needs.
uint32_t rate_control_bit(const OutputSpec& output) {
  if (output.rate_control == RateControl::kCbr) return va_rc::kCbr;
  if (output.rate_control == RateControl::kVbr) return va_rc::kVbr;
  return va_rc::kCqp;
}

std::string mode_name(uint32_t mode) {
  return mode == va_rc::kCbr ? "CBR" : mode == va_rc::kVbr ? "VBR" : "CQP";
}

// 0 = not probed: the encoder is trusted to take the mode.
bool offers(uint32_t modes, uint32_t mode) {
  return modes == 0 || (modes & mode) != 0;
}

// Why no entrypoint has the mode, and what would give it. Low-power (VDEnc) encode runs CBR and
// VBR in the HuC firmware: without HuC the driver offers CQP only (media-driver #580, #1957).
// `huc_seen`: what discovery read of HuC, or what --assume-device assumed (devices.h).
std::string missing_mode_reason(const EncodeEntrypoints& entrypoints, uint32_t mode,
                                const std::string& huc_seen) {
  if (!entrypoints.low_power && !entrypoints.full) return "it has no encode entrypoint";
  std::string here = huc_seen.empty() ? "" : "; HuC here: " + huc_seen;
  return "its encode entrypoint offers only CQP, not " + mode_name(mode) +
         " (VDEnc bitrate control needs the HuC firmware" + here +
         "; boot with i915.enable_guc=2 and "
         "install the GPU firmware package, e.g. firmware-misc-nonfree; on the xe driver use a "
         "kernel whose HuC loads), or constant quality (--rc quality)";
}

}  // namespace

namespace {

// Whether the encode runs on the low-power entrypoint, and the note that says why.
Result<bool> choose_low_power(const OutputSpec& output, const std::string& encoder,
                              const EncodeEntrypoints& entrypoints, const std::string& huc_seen,
                              std::string& note) {
  uint32_t mode = rate_control_bit(output);
  // Low-power (VDEnc) where its bitrate control runs (the probe lists CBR/VBR on it: HuC is
  // loaded, by default from Gen12) and it offers the mode: the fixed-function encoder frees the
  // render engine the full (PAK + shader) one keeps busy (media-driver #580: HEVC full-mode
  // encode at 100% render). Else the full entrypoint where it exists (the one with CBR/VBR on
  // every generation without HuC), else low-power: the only one on Arc/DG2.
  bool full_offers = entrypoints.full && offers(entrypoints.full_rate_control, mode);
  bool low_power_offers = entrypoints.low_power && offers(entrypoints.low_power_rate_control, mode);
  bool vdenc_brc = (entrypoints.low_power_rate_control & (va_rc::kCbr | va_rc::kVbr)) != 0;
  if (low_power_offers && vdenc_brc) {
    note = "low_power: VDEnc with HuC";
    return true;
  }
  if (full_offers) {
    note = "full";
    return false;
  }
  if (low_power_offers) {
    note =
        entrypoints.full ? "low_power: the full entrypoint has no " + mode_name(mode) : "low_power";
    return true;
  }
  return Status(Code::kUnsupported,
                output.path + ": " + encoder + " cannot do " + mode_name(mode) +
                    " on this GPU: " + missing_mode_reason(entrypoints, mode, huc_seen));
}

}  // namespace

Status plan_hw_encoder_options(const OutputSpec& output, const HwEncoderDesc& encoder,
                               const EncodeEntrypoints& entrypoints, VideoEncodePlan& plan,
                               const std::string& huc_seen) {
  apply_bitrate(output, plan);
  if (!encoder.low_power_option.empty()) {
    TC_ASSIGN_OR_RETURN(bool low_power,
                        choose_low_power(output, plan.encoder, entrypoints, huc_seen, plan.note));
    plan.low_power = low_power;
    plan.options.emplace_back(encoder.low_power_option, low_power ? "1" : "0");
  }
  if (!encoder.preset_option.empty()) {
    plan.preset = output.preset.empty() ? std::string(encoder.default_preset) : output.preset;
    plan.options.emplace_back(encoder.preset_option, plan.preset);
  }
  add_hw_rate_control(output, encoder, plan.options);
  if (encoder.async_depth > 0)
    plan.options.emplace_back("async_depth", std::to_string(encoder.async_depth));
  return Status::ok();
}

namespace {

void add_option(const OptionValue& option, Options& options) {
  if (!option.name.empty()) options.emplace_back(option.name, option.value);
}

}  // namespace

void plan_software_encoder_options(const OutputSpec& output, const SwEncoderDesc& encoder,
                                   VideoEncodePlan& plan) {
  apply_bitrate(output, plan);
  Options& options = plan.options;
  if (constant_quality(output))
    options.emplace_back(
        "crf", std::to_string(output.quality >= 0 ? output.quality : encoder.default_crf));
  // Elsewhere CBR follows from the rates apply_bitrate set (the peak equal to the rate).
  if (output.rate_control == RateControl::kCbr) add_option(encoder.cbr_option, options);
  add_option(encoder.before_preset, options);
  plan.preset = output.preset.empty() ? std::string(encoder.default_preset) : output.preset;
  options.emplace_back(encoder.preset_option, plan.preset);
  add_option(encoder.after_preset, options);
}

}  // namespace tc
