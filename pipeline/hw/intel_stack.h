// What an Intel GPU needs besides itself, per generation of intel_profiles.h: the HuC/GuC
// firmware (and which kernel loads it by default), the user-space versions that can drive its
// kernel driver, and the QSV runtime. `transcode doctor`, --assume-device dry runs and the
// QSV plans ask here, so that each says the same thing. Sources are cited in intel_stack.cc.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "pipeline/core/status.h"

namespace tc {

struct IntelFirmwareNeeds {
  // The generation has no shader (PAK + media kernel) encoder: every encode runs on VDEnc, whose
  // CBR/VBR need HuC, which GuC authenticates. Elsewhere the shader encoders do CBR/VBR and
  // HuC only adds low-power modes, so a node without it still works.
  bool huc_required = false;
  // Which kernel loads HuC without options, per platform ("not by default: boot with
  // i915.enable_guc=2", "from Linux 6.2").
  std::string_view huc_default;
};

// Nullopt for a key that is not a generation of ours.
std::optional<IntelFirmwareNeeds> intel_firmware_needs(std::string_view generation_key);

// Why this build's VA-API stack cannot drive a GPU on `kernel_driver` ("xe", "i915"), naming
// the versions it has and the ones needed; empty when it can. `libva_minor` is libva 2.x's
// minor, the VA-API minor this build was compiled against by default.
std::string intel_stack_gap(std::string_view kernel_driver, int libva_minor);
std::string intel_stack_gap(std::string_view kernel_driver);  // this build's libva

// The QSV runtime this build's FFmpeg loads: Intel Media SDK's (libmfx, up to Gen12) or
// oneVPL's (libvpl dispatcher; GPU runtime libmfx-gen1.2 for Gen12 and newer).
enum class QsvRuntime { kNone, kMediaSdk, kOneVpl };
QsvRuntime this_build_qsv_runtime();

// OK when a QSV runtime exists for the generation in a build whose FFmpeg uses `runtime`; else
// kUnsupported saying which runtime the generation needs and that this build has none.
Status intel_qsv_runtime(std::string_view generation_key, QsvRuntime runtime);

// Why discovery does not open QSV on a node of `generation_key` ("" = not known) and `model`
// (its name by PCI id) in a build whose FFmpeg uses `runtime`: intel_qsv_runtime's refusal,
// naming the GPU found; empty where QSV is worth opening (a known generation with a runtime,
// or an unknown one, which only opening can tell).
std::string intel_qsv_node_refusal(std::string_view generation_key, std::string_view model,
                                   QsvRuntime runtime);
// What a failed QSV open on such a node is told: which runtime which generations need, and
// which generation this GPU was found to be, or that its PCI id did not tell.
std::string intel_qsv_open_hint(std::string_view generation_key, std::string_view model);

}  // namespace tc
