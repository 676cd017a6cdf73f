// Firmware, user-space versions and QSV runtimes per Intel generation. Sources:
//
// - HuC by default: intel/media-driver README.md, "Known Issues and Limitations" item 2 (APL/KBL
//   from 4.11, CFL from 4.15, ICL from 5.2, EHL/JSL from 5.8, TGL from 5.9, RKL from 5.17: HuC
//   loading disabled by default, set i915.enable_guc=2; ADL-S/ADL-P by default from 5.17,
//   ADL-N/RPL from 6.2; DG1/SG1 and ATS-M only with intel-gpu-i915-backports; DG2 from 6.2;
//   MTL/ARL from 6.8), and Linux drivers/gpu/drm/i915/gt/uc/intel_uc.c
//   uc_expand_default_options() (no GuC/HuC before Gen12 and on TGL/RKL; HuC only on ADL-S;
//   GuC submission and HuC on the rest). Meteor Lake's HuC is loaded through the GSC and lives
//   on the media GT (gt1): Linux 6.7 added the GSC proxy it needs.
// - Which generations have a shader encoder (and so do CBR/VBR without HuC): README
//   "Decoding/Encoding Features", the "Es" entries (BDW, SKL, BXTx, KBLx, ICL, TGLx, DG1); EHL/JSL
//   and DG2 list only "E" (VDEnc), and from MTL encode is VDEnc behind VAEntrypointEncSlice.
// - xe: iHD supports the xe kernel driver from 23.4.0 (Lunar Lake from 24.3, Battlemage from
//   24.4; media-driver release notes), libva maps an xe node to iHD from 2.21
//   (va/drm/va_drm_utils.c, g_driver_name_map). Debian 12 ships kernel 6.1, libva 2.17 and iHD
//   23.1.1; Debian 13 (the image) libva 2.22 and iHD 25.2 (VAAPI-NOTES.md).
// - QSV runtimes: Intel Media SDK's runtime (libmfx1) drives BDW to TGLx; oneVPL's GPU runtime
//   (libmfx-gen1.2, source onevpl-intel-gpu) starts at Gen12 (TGL). Debian 13 ships
//   libmfx-gen1.2 (25.1.4) but no longer libmfx1 (intel-media-sdk is bookworm's last).
#include "pipeline/hw/intel_stack.h"

#include <va/va_version.h>

#include <array>

extern "C" {
#include <libavcodec/avcodec.h>
}

namespace tc {
namespace {

struct Facts {
  std::string_view key;
  bool huc_required;
  bool media_sdk_only;  // no oneVPL GPU runtime: QSV only through Media SDK's libmfx1
  std::string_view huc_default;
};

constexpr std::string_view kEnableGuc = "not by default: boot with i915.enable_guc=2";

constexpr std::array kFacts{
    Facts{"bdw", false, true, "none: Broadwell has no HuC"},
    Facts{"skl", false, true, kEnableGuc},
    Facts{"bxt", false, true, "APL/GLK: not by default (since 4.11): boot with i915.enable_guc=2"},
    Facts{"kbl", false, true,
          "KBL (since 4.11), CFL (since 4.15): not by default: boot with i915.enable_guc=2"},
    Facts{"icl", false, true, "not by default (since 5.2): boot with i915.enable_guc=2"},
    Facts{"ehl", true, true, "not by default (since 5.8): boot with i915.enable_guc=2"},
    Facts{"tgl", false, false,
          "TGL, RKL: not by default (boot with i915.enable_guc=2); ADL-S, ADL-P: from Linux "
          "5.17; ADL-N, RPL-S, RPL-P: from 6.2"},
    Facts{"dg1", false, false, "only with Intel's intel-gpu-i915-backports kernel module"},
    Facts{"dg2", true, false,
          "DG2: from Linux 6.2; ATS-M only with Intel's intel-gpu-i915-backports"},
    Facts{"mtl", true, false,
          "from Linux 6.8 per media-driver (loaded through the GSC proxy, 6.7), on the media GT "
          "(gt1)"},
    Facts{"lnl", true, false, "by the xe kernel driver, on the media GT"},
    Facts{"bmg", true, false, "by the xe kernel driver, on the media GT"},
};

const Facts* facts_of(std::string_view key) {
  for (const Facts& facts : kFacts)
    if (facts.key == key) return &facts;
  return nullptr;
}

constexpr int kLibvaXeMinor = 21;  // libva 2.21 maps xe nodes to iHD

}  // namespace

std::optional<IntelFirmwareNeeds> intel_firmware_needs(std::string_view generation_key) {
  const Facts* facts = facts_of(generation_key);
  if (!facts) return std::nullopt;
  return IntelFirmwareNeeds{facts->huc_required, facts->huc_default};
}

std::string intel_stack_gap(std::string_view kernel_driver, int libva_minor) {
  if (kernel_driver != "xe" || libva_minor >= kLibvaXeMinor) return {};
  return "this build's VA-API stack cannot drive the xe kernel driver: it is Debian 12's (libva "
         "2." +
         std::to_string(libva_minor) +
         ", iHD 23.1.1, kernel 6.1); libva maps xe to iHD from 2.21, iHD supports xe from 23.4 "
         "(Lunar Lake from 24.3, Battlemage from 24.4), and Linux 6.1 has no xe driver. The "
         "Debian 13 image has them (libva 2.22, iHD 25.2, FFmpeg 7.1): run that image on this node";
}

std::string intel_stack_gap(std::string_view kernel_driver) {
  return intel_stack_gap(kernel_driver, VA_MINOR_VERSION);
}

QsvRuntime this_build_qsv_runtime() {
  // The configure line is the only place FFmpeg says which QSV library it was built against.
  std::string_view configuration = avcodec_configuration();
  if (configuration.find("--enable-libvpl") != std::string_view::npos) return QsvRuntime::kOneVpl;
  if (configuration.find("--enable-libmfx") != std::string_view::npos) return QsvRuntime::kMediaSdk;
  return QsvRuntime::kNone;
}

Status intel_qsv_runtime(std::string_view generation_key, QsvRuntime runtime) {
  if (runtime == QsvRuntime::kNone)
    return Status(Code::kUnsupported, "this FFmpeg was built without QSV (libmfx or libvpl)");
  const Facts* facts = facts_of(generation_key);
  if (!facts || !facts->media_sdk_only || runtime == QsvRuntime::kMediaSdk) return Status::ok();
  return Status(Code::kUnsupported,
                "QSV on " + std::string(generation_key) +
                    " needs Intel Media SDK's runtime (libmfx1, Broadwell to Gen12); this build's "
                    "FFmpeg uses oneVPL, whose GPU runtime (libmfx-gen1.2) starts at Gen12 (Tiger "
                    "Lake), and Debian 13 no longer ships libmfx1: use --backend vaapi, which "
                    "drives the same engines");
}

namespace {

// "UHD Graphics 630 (CFL), generation kbl" or "generation not known (its PCI id is not in
// our table)".
std::string gpu_found(std::string_view generation_key, std::string_view model) {
  if (generation_key.empty()) return "generation not known (its PCI id is not in our table)";
  std::string found = model.empty() ? std::string() : std::string(model) + ", ";
  return found + "generation " + std::string(generation_key);
}

}  // namespace

std::string intel_qsv_node_refusal(std::string_view generation_key, std::string_view model,
                                   QsvRuntime runtime) {
  if (runtime != QsvRuntime::kNone && generation_key.empty()) return {};
  Status status = intel_qsv_runtime(generation_key, runtime);
  if (status.is_ok()) return {};
  return status.message() + " (this GPU: " + gpu_found(generation_key, model) + ")";
}

std::string intel_qsv_open_hint(std::string_view generation_key, std::string_view model) {
  return "QSV needs Intel Media SDK's runtime libmfx1 from Broadwell to Gen12, or oneVPL's "
         "libmfx-gen1.2 from Gen12 (Tiger Lake); this GPU: " +
         gpu_found(generation_key, model);
}

}  // namespace tc
