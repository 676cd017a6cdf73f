// Intel GPU generations and what VA-API offers on each, from Intel's published tables:
//
// - intel/media-driver README.md, "Decoding/Encoding Features" (columns BMG, LNL, MTLx,
//   DG2/ATSM, DG1/SG1, TGLx, EHL/JSL, ICL, KBLx, BXTx, SKL, BDW; D = VLD decode, E = VDEnc
//   low-power encode (VAEntrypointEncSliceLP), Es = PAK + shader encode (VAEntrypointEncSlice);
//   "from MTL, low-power and shader encode are consolidated into VAEntrypointEncSlice", which
//   then runs on VDEnc/HuC) and its "Supported Platforms" list (TGLx = TGL, RKL, ADL-S/P/N,
//   RPL-S/P; MTLx = MTL, ARL; KBLx = KBL, CFL, WHL, CML, AML).
// - intel/media-driver docs/media_features.md, "Supported Decoding Output Format and Max
//   Resolution" and "Supported Encoding Input Format and Max Resolution" (2k = 2048x2048,
//   4k = 4096x4096, 8k = 8192x8192, 16k = 16384x16384; VDEnc 16k = 16384x12288).
// - Rate control: VDEnc's CBR/VBR run in the HuC firmware; without it low-power encode is CQP
//   only (media-driver #580, #1957). Which kernel loads HuC by default, per platform, is in
//   intel_stack.cc (not before Gen12, nor on TGL/RKL; ADL-S/ADL-P from 5.17, ADL-N/RPL and DG2
//   from 6.2, MTL from 6.8): `huc_by_default` below is the generation's usual case (TGLx: as
//   on ADL/RPL; `tgl:no-huc` for TGL/RKL). Shader encode does CBR/VBR/CQP itself.
// - Kernel driver: i915 up to MTL and DG2; Lunar Lake and Battlemage are xe-only.
// - PCI ids: intel_pci_ids.cc.
//
// Omitted: VP8 decode on TGL alone of TGLx (a sub-platform), JPEG, VVC (LNL).
#include "pipeline/hw/intel_profiles.h"

#include <va/va.h>

#include <algorithm>

#include "pipeline/hw/intel_stack.h"
#include "pipeline/hw/va_caps.h"
#include "pipeline/hw/va_profiles.h"

namespace tc {
namespace {

struct Size {
  int width = 0;
  int height = 0;
};
constexpr Size k2k{2048, 2048};
constexpr Size k4k{4096, 4096};
constexpr Size k8k{8192, 8192};
constexpr Size k16k{16384, 16384};
constexpr Size kVdenc16k{16384, 12288};

// kLpHuc: a VDEnc entrypoint that iHD lists only when HuC is loaded. VP9 encode on ICL, EHL/JSL
// and TGLx/DG1 is registered under FtrEnableMediaKernels, which iHD's Gen11/Gen12 SKU tables set
// from hasHuc (VAAPI-NOTES.md, "More facts"): without HuC there is no VP9 encoder at all, not a
// CQP-only one. On xe iHD sets hasHuc unconditionally.
enum Op : unsigned { kDec = 1, kLp = 2, kFull = 4, kLpHuc = 8 };

// One row of the tables for one generation: a VA profile, its entrypoints and sizes.
struct Feature {
  int va_profile;
  unsigned ops;
  Size decode_max;
  Size encode_max = {};
  int decode_depth = 0;  // 0 = the profile's own highest; 12 where 12-bit decode is listed
};

struct Generation {
  std::string_view key;
  std::string_view aliases;
  std::string_view name;
  std::string_view kernel_driver;
  bool huc_by_default;
  // From MTL, VAEntrypointEncSlice is VDEnc too: its CBR/VBR need HuC like EncSliceLP's.
  bool full_is_vdenc;
  std::vector<Feature> features;
};

constexpr uint32_t kShaderRc = va_rc::kCqp | va_rc::kCbr | va_rc::kVbr;
constexpr uint32_t kVdencHucRc =
    va_rc::kCqp | va_rc::kCbr | va_rc::kVbr | va_rc::kIcq | va_rc::kQvbr;
constexpr uint32_t kVdencNoHucRc = va_rc::kCqp;

std::vector<Feature> h264(unsigned ops) {
  return {{VAProfileH264ConstrainedBaseline, ops, k4k, k4k},
          {VAProfileH264Main, ops, k4k, k4k},
          {VAProfileH264High, ops, k4k, k4k}};
}

std::vector<Feature> vc1() {
  return {{VAProfileVC1Simple, kDec, k4k},
          {VAProfileVC1Main, kDec, k4k},
          {VAProfileVC1Advanced, kDec, k4k}};
}

std::vector<Feature> mpeg2(unsigned ops) {
  return {{VAProfileMPEG2Simple, ops, k2k, k2k}, {VAProfileMPEG2Main, ops, k2k, k2k}};
}

std::vector<Feature> join(std::initializer_list<std::vector<Feature>> parts) {
  std::vector<Feature> all;
  for (const std::vector<Feature>& part : parts) all.insert(all.end(), part.begin(), part.end());
  return all;
}

// Gen11 (ICL) and EHL/JSL: HEVC and VP9 up to 10-bit, 4:2:2/4:4:4; `full` = shader encode.
std::vector<Feature> gen11_hevc_vp9(unsigned full) {
  return {{VAProfileHEVCMain, kDec | kLp | full, k8k, k8k},
          {VAProfileHEVCMain10, kDec | kLp | full, k8k, k8k},
          {VAProfileHEVCMain422_10, kDec | full, k8k, k8k},
          {VAProfileHEVCMain444, kDec | kLp, k8k, k8k},
          {VAProfileHEVCMain444_10, kDec | kLp, k8k, k8k},
          {VAProfileVP9Profile0, kDec | kLpHuc, k8k, k8k},
          {VAProfileVP9Profile1, kDec | kLpHuc, k8k, k8k},
          {VAProfileVP9Profile2, kDec | kLpHuc, k8k, k8k},
          {VAProfileVP9Profile3, kDec | kLpHuc, k8k, k8k}};
}

// Gen12 (TGLx, DG1) and newer: 12-bit HEVC/VP9 decode, AV1 decode. `vdenc` is the entrypoint
// VDEnc answers on (EncSliceLP, or EncSlice from MTL), `shader` the shader encoder's (0 = none),
// `hevc422` HEVC 4:2:2's encode entrypoint (0 = decode only), `vp9` VP9's (0 = none).
std::vector<Feature> gen12_hevc_vp9_av1(unsigned vdenc, unsigned shader, unsigned hevc422,
                                        unsigned vp9, bool av1_encode, Size decode_max,
                                        Size hevc_encode_max, Size vp9_av1_encode_max) {
  unsigned av1 = av1_encode ? vdenc : 0;
  return {{VAProfileHEVCMain, kDec | vdenc | shader, decode_max, hevc_encode_max},
          {VAProfileHEVCMain10, kDec | vdenc | shader, decode_max, hevc_encode_max},
          {VAProfileHEVCMain12, kDec, decode_max},
          {VAProfileHEVCMain422_10, kDec | hevc422, decode_max, hevc_encode_max},
          {VAProfileHEVCMain422_12, kDec, decode_max},
          {VAProfileHEVCMain444, kDec | vdenc, decode_max, hevc_encode_max},
          {VAProfileHEVCMain444_10, kDec | vdenc, decode_max, hevc_encode_max},
          {VAProfileHEVCMain444_12, kDec, decode_max},
          {VAProfileVP9Profile0, kDec | vp9, decode_max, vp9_av1_encode_max},
          {VAProfileVP9Profile1, kDec | vp9, decode_max, vp9_av1_encode_max},
          {VAProfileVP9Profile2, kDec | vp9, decode_max, vp9_av1_encode_max, 12},
          {VAProfileVP9Profile3, kDec | vp9, decode_max, vp9_av1_encode_max, 12},
          {VAProfileAV1Profile0, kDec | av1, decode_max, vp9_av1_encode_max}};
}

const std::vector<Generation>& generations() {
  static const std::vector<Generation> all = [] {
    std::vector<Generation> g;
    // Gen8: H.264 and MPEG-2 by the shader encoder only; no HEVC, no VP9; no HuC (README
    // "Decoding/Encoding Features", BDW column: AVC D/Es, MPEG-2 D/Es, VC-1 D, VP8 D).
    g.push_back({"bdw", "", "Gen8 Broadwell (BDW)", "i915", false, false,
                 join({h264(kDec | kFull),
                       mpeg2(kDec | kFull),
                       vc1(),
                       {{VAProfileVP8Version0_3, kDec, k4k}}})});
    // Gen9: H.264 and HEVC 8-bit; no VP9 (hybrid only), HEVC encode by shader (4k).
    g.push_back({"skl", "", "Gen9 Skylake (SKL)", "i915", false, false,
                 join({h264(kDec | kLp | kFull),
                       mpeg2(kDec | kFull),
                       vc1(),
                       {{VAProfileVP8Version0_3, kDec, k4k},
                        {VAProfileHEVCMain, kDec | kFull, k8k, k4k}}})});
    // Gen9 Atom (BXTx: Apollo Lake, Gemini Lake): AVC D/E/Es, MPEG-2 decode only, HEVC 8-bit
    // D/Es, HEVC 10-bit and VP9 8-bit decode (README, BXTx column).
    g.push_back({"bxt", "apl,glk", "Gen9 Apollo Lake / Gemini Lake (BXTx)", "i915", false, false,
                 join({h264(kDec | kLp | kFull),
                       mpeg2(kDec),
                       vc1(),
                       {{VAProfileVP8Version0_3, kDec, k4k},
                        {VAProfileHEVCMain, kDec | kFull, k8k, k4k},
                        {VAProfileHEVCMain10, kDec, k8k},
                        {VAProfileVP9Profile0, kDec, k4k}}})});
    // Gen9.5: adds HEVC 10-bit and VP9 8/10-bit decode, VP8 shader encode.
    g.push_back({"kbl", "cfl,whl,cml,aml", "Gen9.5 Kaby/Coffee/Whiskey/Comet Lake (KBLx)", "i915",
                 false, false,
                 join({h264(kDec | kLp | kFull),
                       mpeg2(kDec | kFull),
                       vc1(),
                       {{VAProfileVP8Version0_3, kDec | kFull, k4k, k4k},
                        {VAProfileHEVCMain, kDec | kFull, k8k, k4k},
                        // Main10 by the shader encoder (README "Es" for KBLx HEVC 10-bit).
                        {VAProfileHEVCMain10, kDec | kFull, k8k, k4k},
                        {VAProfileVP9Profile0, kDec, k8k},
                        {VAProfileVP9Profile2, kDec, k8k}}})});
    g.push_back({"icl", "", "Gen11 Ice Lake (ICL)", "i915", false, false,
                 join({h264(kDec | kLp | kFull),
                       mpeg2(kDec | kFull),
                       vc1(),
                       {{VAProfileVP8Version0_3, kDec | kFull, k4k, k4k}},
                       gen11_hevc_vp9(kFull)})});
    // Atom/embedded Gen11: the same media engine without shader encode.
    g.push_back({"ehl", "jsl", "Gen11 Elkhart Lake / Jasper Lake (EHL/JSL)", "i915", false, false,
                 join({h264(kDec | kLp),
                       mpeg2(kDec),
                       vc1(),
                       {{VAProfileVP8Version0_3, kDec, k4k}},
                       gen11_hevc_vp9(0)})});
    g.push_back({"tgl", "rkl,adl,rpl", "Gen12 Tiger/Rocket/Alder/Raptor Lake (TGLx)", "i915", true,
                 false,
                 join({h264(kDec | kLp | kFull), mpeg2(kDec | kFull), vc1(),
                       gen12_hevc_vp9_av1(kLp, kFull, kFull, kLpHuc, false, k8k, k8k, k8k)})});
    g.push_back({"dg1", "sg1", "DG1 Iris Xe MAX / SG1", "i915", true, false,
                 join({h264(kDec | kLp | kFull), mpeg2(kDec | kFull), vc1(),
                       gen12_hevc_vp9_av1(kLp, kFull, kFull, kLpHuc, false, k8k, k8k, k8k)})});
    // Xe-HPG: VDEnc only (EncSliceLP), AV1 encode, no VC-1; 16k decode.
    g.push_back({"dg2", "arc,atsm,flex", "Alchemist DG2 / Arc A-series, Flex 140/170 (ATS-M)",
                 "i915", true, false,
                 join({h264(kDec | kLp), mpeg2(kDec),
                       gen12_hevc_vp9_av1(kLp, 0, kLp, kLp, true, k16k, kVdenc16k, k8k)})});
    // From MTL, encode is VAEntrypointEncSlice (VDEnc behind it); no HEVC 4:2:2 encode on MTL.
    g.push_back({"mtl", "arl", "Meteor Lake / Arrow Lake (MTLx)", "i915", true, true,
                 join({h264(kDec | kFull),
                       mpeg2(kDec),
                       {{VAProfileVP8Version0_3, kDec, k4k}},
                       gen12_hevc_vp9_av1(kFull, 0, 0, kFull, true, k16k, kVdenc16k, k8k)})});
    // Xe2: no VP9 encode.
    g.push_back({"lnl", "", "Lunar Lake (LNL)", "xe", true, true,
                 join({h264(kDec | kFull),
                       mpeg2(kDec),
                       {{VAProfileVP8Version0_3, kDec, k4k}},
                       gen12_hevc_vp9_av1(kFull, 0, kFull, 0, true, k16k, kVdenc16k, k8k)})});
    g.push_back({"bmg", "", "Battlemage (BMG) / Arc B-series", "xe", true, true,
                 join({h264(kDec | kFull),
                       mpeg2(kDec),
                       {{VAProfileVP8Version0_3, kDec, k4k}},
                       gen12_hevc_vp9_av1(kFull, 0, kFull, 0, true, k16k, kVdenc16k, k8k)})});
    return g;
  }();
  return all;
}

bool in_list(std::string_view list, std::string_view name) {
  while (!list.empty()) {
    size_t comma = list.find(',');
    if (list.substr(0, comma) == name) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

const Generation* find_generation(std::string_view name) {
  for (const Generation& generation : generations())
    if (generation.key == name || in_list(generation.aliases, name)) return &generation;
  return nullptr;
}

VaConfigAttributes attributes(Size max, uint32_t rate_control, int depth) {
  VaConfigAttributes attributes;
  attributes.max_width = max.width;
  attributes.max_height = max.height;
  attributes.rate_control = rate_control;
  if (depth == 12) attributes.rt_formats = VA_RT_FORMAT_YUV420 | VA_RT_FORMAT_YUV420_12;
  return attributes;
}

// The profile list libva would give on this generation, with each entrypoint's attributes.
std::vector<VaProfileEntrypoints> va_profiles_of(const Generation& generation, bool huc) {
  uint32_t vdenc_rc = huc ? kVdencHucRc : kVdencNoHucRc;
  uint32_t full_rc = generation.full_is_vdenc ? vdenc_rc : kShaderRc;
  std::vector<VaProfileEntrypoints> profiles;
  for (const Feature& feature : generation.features) {
    VaProfileEntrypoints entry{feature.va_profile, {}, {}};
    if (feature.ops & kDec) {
      entry.entrypoints.push_back(VAEntrypointVLD);
      entry.attributes[VAEntrypointVLD] = attributes(feature.decode_max, 0, feature.decode_depth);
    }
    if (feature.ops & kFull) {
      entry.entrypoints.push_back(VAEntrypointEncSlice);
      entry.attributes[VAEntrypointEncSlice] = attributes(feature.encode_max, full_rc, 0);
    }
    if ((feature.ops & kLp) || ((feature.ops & kLpHuc) && huc)) {
      entry.entrypoints.push_back(VAEntrypointEncSliceLP);
      entry.attributes[VAEntrypointEncSliceLP] = attributes(feature.encode_max, vdenc_rc, 0);
    }
    profiles.push_back(std::move(entry));
  }
  profiles.push_back({VAProfileNone, {VAEntrypointVideoProc}, {}});  // every generation has VPP
  return profiles;
}

std::string codec_list(const HwDevice& device, bool decode) {
  std::string text;
  auto add_codec = [&text](AVCodecID codec, const std::string& extra) {
    text += (text.empty() ? "" : " ") + std::string(avcodec_get_name(codec)) + extra;
  };
  if (decode) {
    for (const auto& [codec, depth] : device.decode)
      add_codec(codec, depth > 8 ? "(" + std::to_string(depth) + "-bit)" : "");
  } else {
    for (const auto& [codec, entrypoints] : device.encode)
      add_codec(codec, entrypoints.full && entrypoints.low_power ? "(full+lp)"
                       : entrypoints.low_power                   ? "(lp)"
                                                                 : "(full)");
  }
  return text;
}

std::string known_names() {
  std::string names;
  for (const Generation& generation : generations()) {
    names += (names.empty() ? "" : ", ") + std::string(generation.key);
    if (!generation.aliases.empty()) names += " (" + std::string(generation.aliases) + ")";
  }
  return names;
}

// HDR10 tone mapping in VPP (VAProcFilterHighDynamicRangeToneMapping): from Gen11 (ICL) on,
// except the Atom Gen11 parts (docs/media_features.md, "Supported VP Features": HDR10 tone
// mapping lists ICL and newer, not SKL, KBLx, BXT/GLK, EHL/JSL).
bool has_hdr_tonemap(const Generation& generation) {
  for (std::string_view without : {"bdw", "skl", "bxt", "kbl", "ehl"})  // README "HDR10 TM"
    if (generation.key == without) return false;
  return true;
}

}  // namespace

// docs/media_features.md, "Supported Video Processing CSC/Scaling Format": BDW lists no P010,
// SKL/BXT/KBL/CFL/WHL/CML list P010 as input only, ICL, JSL/EHL, TGL/RKL, DG1 as input and
// output. The Gen9 code says the same: VphalSfcStateG9::IsInputFormatSupported takes
// Format_P010, VphalSfcStateG9::IsOutputFormatSupported has no 10-bit format
// (media_driver/agnostic/gen9/vp/hal/vphal_render_sfc_g9_base.cpp). DG2 and newer are Gen12's
// VPP and later (P010 both ways).
void set_vpp_ten_bit(std::string_view generation, HwDevice& device) {
  if (!find_generation(generation)) return;
  bool gen8 = generation == "bdw";
  bool gen9 = generation == "skl" || generation == "bxt" || generation == "kbl";
  device.vpp_reads_ten_bit = !gen8;
  device.vpp_writes_ten_bit = !gen8 && !gen9;
}

namespace {

HwDevice device_of(const Generation& generation, bool huc, std::string_view driver) {
  HwDevice device;
  device.backend = BackendKind::kVaapi;
  // The node such a GPU usually has, so that --dry-run's ffmpeg command runs on it as printed.
  device.path = "/dev/dri/renderD128";
  device.driver = driver;
  device.vendor = "Intel iHD driver (assumed: " + std::string(generation.key) + ")";
  device.model = std::string(generation.name);
  device.generation = generation.key;
  // On xe the driver lists VDEnc's bitrate modes whether or not HuC runs (va_caps.h): the
  // profile answers as the driver would, then discovery's gate applies.
  bool xe = driver == "xe";
  apply_va_caps(va_profiles_of(generation, huc || xe), device);
  if (xe) gate_vdenc_bitrate_on_huc(huc, device);
  device.can_tonemap = has_hdr_tonemap(generation);
  set_vpp_ten_bit(generation.key, device);
  return device;
}

// What the plan assumed of HuC, for the dry run to say (devices.h huc_seen): the generation's
// usual case unless the spec named one, what the kernels do by default (intel_stack.cc), and the
// spec that plans the other case. `named`: the spec said huc or no-huc.
std::string huc_assumption(const Generation& generation, std::string_view spec, bool huc,
                           bool named, std::string_view driver) {
  std::string key(generation.key);
  std::string text = std::string("assumed ") + (huc ? "running" : "not running") + " on " +
                     std::string(driver) + " (--assume-device " + std::string(spec) +
                     (named ? ")" : ": the generation's usual case)");
  if (!huc) text += ": low-power (VDEnc) encode is CQP-only";
  if (std::optional<IntelFirmwareNeeds> needs = intel_firmware_needs(generation.key))
    text += "; HuC by default on " + key + ": " + std::string(needs->huc_default);
  if (!named)
    text += huc ? "; where HuC does not run, plan with " + key + ":no-huc"
                : "; where HuC runs, plan with " + key + ":huc";
  return text;
}

}  // namespace

std::vector<IntelProfileSummary> intel_profiles() {
  std::vector<IntelProfileSummary> summaries;
  for (const Generation& generation : generations()) {
    HwDevice device = device_of(generation, generation.huc_by_default, generation.kernel_driver);
    summaries.push_back(
        {generation.key, generation.aliases, generation.name, generation.kernel_driver,
         generation.huc_by_default,
         "decode: " + codec_list(device, true) + "; encode: " + codec_list(device, false)});
  }
  return summaries;
}

std::string_view intel_profile_key(std::string_view spec) {
  const Generation* generation = find_generation(spec.substr(0, spec.find(':')));
  return generation ? generation->key : std::string_view();
}

Result<HwDevice> assume_intel_device(std::string_view spec) {
  std::string_view name = spec.substr(0, spec.find(':'));
  const Generation* generation = find_generation(name);
  if (!generation)
    return Status(Code::kInvalidArgument,
                  "unknown device profile '" + std::string(name) + "'; known: " + known_names());
  bool huc = generation->huc_by_default;
  bool huc_named = false;
  std::string_view driver = generation->kernel_driver;
  std::string_view modifiers =
      spec.size() > name.size() ? spec.substr(name.size() + 1) : std::string_view();
  while (!modifiers.empty()) {
    std::string_view modifier = modifiers.substr(0, modifiers.find(':'));
    if (modifier == "huc" || modifier == "no-huc") {
      huc = modifier == "huc";
      huc_named = true;
    } else if (modifier == "xe" || modifier == "i915")
      driver = modifier;
    else
      return Status(Code::kInvalidArgument, "unknown device profile modifier '" +
                                                std::string(modifier) +
                                                "'; known: huc, no-huc, xe, i915");
    modifiers.remove_prefix(std::min(modifiers.size(), modifier.size() + 1));
  }
  // Lunar Lake and Battlemage have no i915 support at all: Linux lists their ids for xe alone
  // (include/drm/intel/pciids.h INTEL_LNL_IDS/INTEL_BMG_IDS are used by xe_pci.c, not i915_pci.c).
  if (generation->kernel_driver == "xe" && driver == "i915")
    return Status(Code::kInvalidArgument, std::string(generation->name) +
                                              " runs only on the xe kernel driver (i915 has "
                                              "no support for it): use '" +
                                              std::string(generation->key) + "' or '" +
                                              std::string(generation->key) + ":xe'");
  HwDevice device = device_of(*generation, huc, driver);
  device.huc_running = huc;
  device.huc_seen = huc_assumption(*generation, spec, huc, huc_named, driver);
  return device;
}

}  // namespace tc
