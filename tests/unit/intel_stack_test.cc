// The Intel device tables beside the profiles: PCI ids as intel/media-driver registers them,
// which generations need HuC, what this build's user space can drive, and QSV runtimes.
#include "pipeline/hw/intel_stack.h"

#include <gtest/gtest.h>

#include "pipeline/hw/intel_profiles.h"
#include "pipeline/hw/va_caps.h"

namespace tc {
namespace {

// Literal ids against the generation media-driver gives them: each id's RegisterDevice line
// and the GfxDeviceInfo it names (productFamily), in the files intel_pci_ids.cc cites.
TEST(IntelPciIds, MediaDriverIdsNameTheirGeneration) {
  struct Case {
    uint16_t id;
    const char* generation;
    const char* platform;
  };
  for (Case c : {
           Case{0x1616, "bdw", "BDW"},    // gen8: bdwDevice1616 -> bdwGt2Info (IGFX_BROADWELL)
           Case{0x1912, "skl", "SKL"},    // gen9: sklDevice1912 -> sklGt2Info (IGFX_SKYLAKE)
           Case{0x5a85, "bxt", "APL"},    // gen9: bxtDevice5a85 -> bxtGt1Info (IGFX_BROXTON)
           Case{0x3185, "bxt", "GLK"},    // gen9: glkDevice3a85 -> glkGt1Info (IGFX_GEMINILAKE)
           Case{0x3e98, "kbl", "CFL"},    // gen9: cflDevice3e98 -> cflGt2Info (IGFX_COFFEELAKE)
           Case{0x9bc8, "kbl", "CML"},    // gen9: cmlDevice9bc8 -> cflGt2Info
           Case{0x87c0, "kbl", "AML"},    // gen9: cmlDevice87C0 -> cflGt2Info
           Case{0x8a52, "icl", "ICL"},    // gen11: icllpDevice8a52 -> icllpGt2Info
           Case{0x4e61, "ehl", "JSL"},    // gen11: ehlDevice4E61 -> ehlDevInfo (IGFX_ELKHARTLAKE)
           Case{0x9a49, "tgl", "TGL"},    // gen12: tgllpGt2Device9a49 -> tgllpGt2Info
           Case{0x46d1, "tgl", "ADL-N"},  // gen12: adlnGt1Device46D1 -> adlnGt1Info
           Case{0xa7a0, "tgl", "RPL-P"},  // gen12: rplpGt2DeviceA7A0 -> adlpGt2Info
           Case{0x4905, "dg1", "DG1"},    // gen12: dg1Gt2Device4905 -> dg1Gt2Info (IGFX_DG1)
           Case{0x56a2, "dg2", "DG2"},    // Xe_M: dg2Gt4Device56A2 -> dg2Gt4Info (Arc A580)
           Case{0x7d55, "mtl", "MTL"},    // Xe_M_plus: mtlDevice7d55 -> mtlInfo
           Case{0x64a0, "lnl", "LNL"},    // xe2_lpm: lnlDevice64a0 -> lnlInfo
           Case{0xe20b, "bmg", "BMG"},    // xe2_hpm: bmgDevicee20B -> bmgInfo
       }) {
    SCOPED_TRACE(c.id);
    EXPECT_EQ(intel_generation_of(c.id), c.generation);
    EXPECT_EQ(intel_platform_of(c.id), c.platform);
    EXPECT_TRUE(assume_intel_device(c.generation).is_ok()) << c.generation;
  }
  EXPECT_EQ(intel_model_name(0x3e98), "UHD Graphics 630 (CFL)");
  EXPECT_EQ(intel_model_name(0x56a2), "Arc A580 (DG2)");
  EXPECT_EQ(intel_model_name(0x3184), "UHD Graphics 605 (GLK)");
  EXPECT_EQ(intel_model_name(0x9ba8), "Comet Lake GPU (CML)");  // no marketing name of ours
  // Ponte Vecchio (0x0bd5) is in media-driver's Xe_M file but has no profile of ours.
  EXPECT_EQ(intel_generation_of(0x0bd5), "");
  EXPECT_EQ(intel_model_name(0xffff), "");
}

TEST(IntelFirmware, HucIsRequiredWhereEveryEncoderIsVdenc) {
  for (const IntelProfileSummary& profile : intel_profiles()) {
    SCOPED_TRACE(profile.key);
    std::optional<IntelFirmwareNeeds> needs = intel_firmware_needs(profile.key);
    ASSERT_TRUE(needs.has_value());
    EXPECT_FALSE(needs->huc_default.empty());
    // The profile without HuC: a shader encoder with CBR is what makes HuC optional.
    Result<HwDevice> device = assume_intel_device(std::string(profile.key) + ":no-huc");
    ASSERT_TRUE(device.is_ok()) << device.status().to_string();
    const EncodeEntrypoints& h264 = device->encode.at(AV_CODEC_ID_H264);
    bool shader_cbr = h264.full && (h264.full_rate_control & va_rc::kCbr);
    EXPECT_EQ(needs->huc_required, !shader_cbr);
  }
  EXPECT_TRUE(intel_firmware_needs("ehl")->huc_required);
  EXPECT_TRUE(intel_firmware_needs("dg2")->huc_required);
  EXPECT_FALSE(intel_firmware_needs("kbl")->huc_required);
  EXPECT_NE(intel_firmware_needs("mtl")->huc_default.find("gt1"), std::string_view::npos);
  EXPECT_FALSE(intel_firmware_needs("gen42").has_value());
}

TEST(IntelStack, DebianTwelveCannotDriveXeAndSaysWhichVersions) {
  std::string gap = intel_stack_gap("xe", 17);
  for (const char* fact :
       {"libva 2.17", "iHD 23.1.1", "kernel 6.1", "from 2.21", "from 23.4", "Lunar Lake from 24.3",
        "Battlemage from 24.4", "Debian 13 image has them (libva 2.22, iHD 25.2"})
    EXPECT_NE(gap.find(fact), std::string::npos) << fact << "\n" << gap;
  EXPECT_EQ(intel_stack_gap("xe", 22), "");
  EXPECT_EQ(intel_stack_gap("i915", 17), "");
}

TEST(IntelStack, LunarLakeAndBattlemageAreRefusedOnI915) {
  for (const char* spec : {"lnl:i915", "bmg:i915", "bmg:huc:i915"}) {
    Result<HwDevice> device = assume_intel_device(spec);
    ASSERT_FALSE(device.is_ok()) << spec;
    EXPECT_EQ(device.status().code(), Code::kInvalidArgument);
    EXPECT_NE(device.status().message().find("runs only on the xe kernel driver"),
              std::string::npos)
        << device.status().message();
  }
  EXPECT_TRUE(assume_intel_device("lnl:xe").is_ok());
  EXPECT_TRUE(assume_intel_device("dg2:xe").is_ok());
}

TEST(IntelQsv, GenerationsBeforeGen12HaveNoOneVplRuntime) {
  for (const char* key : {"bdw", "skl", "bxt", "kbl", "icl", "ehl"}) {
    Status oneVpl = intel_qsv_runtime(key, QsvRuntime::kOneVpl);
    EXPECT_EQ(oneVpl.code(), Code::kUnsupported) << key;
    EXPECT_NE(oneVpl.message().find("libmfx1"), std::string::npos) << oneVpl.message();
    EXPECT_NE(oneVpl.message().find("--backend vaapi"), std::string::npos) << oneVpl.message();
    EXPECT_TRUE(intel_qsv_runtime(key, QsvRuntime::kMediaSdk).is_ok()) << key;
  }
  for (const char* key : {"tgl", "dg1", "dg2", "mtl", "lnl", "bmg"})
    EXPECT_TRUE(intel_qsv_runtime(key, QsvRuntime::kOneVpl).is_ok()) << key;
  EXPECT_EQ(intel_qsv_runtime("tgl", QsvRuntime::kNone).code(), Code::kUnsupported);
  EXPECT_EQ(intel_profile_key("cfl:no-huc"), "kbl");
}

// On a real node discovery does not open QSV where the node's generation (by its PCI id) has no
// runtime in this build, and says which GPU it found; where the id does not tell, it opens, and
// a failure says that the generation is not known.
TEST(IntelQsv, ANodesRefusalNamesTheGenerationFoundOrThatItIsNotKnown) {
  std::string refusal =
      intel_qsv_node_refusal("kbl", "UHD Graphics 630 (CFL)", QsvRuntime::kOneVpl);
  EXPECT_NE(refusal.find("QSV on kbl needs Intel Media SDK's runtime (libmfx1"), std::string::npos)
      << refusal;
  EXPECT_NE(refusal.find("(this GPU: UHD Graphics 630 (CFL), generation kbl)"), std::string::npos)
      << refusal;
  for (const char* key : {"bdw", "skl", "bxt", "icl", "ehl"})
    EXPECT_NE(intel_qsv_node_refusal(key, "", QsvRuntime::kOneVpl)
                  .find(std::string("(this GPU: generation ") + key + ")"),
              std::string::npos)
        << key;
  EXPECT_EQ(intel_qsv_node_refusal("kbl", "", QsvRuntime::kMediaSdk), "");
  EXPECT_EQ(intel_qsv_node_refusal("tgl", "", QsvRuntime::kOneVpl), "");
  EXPECT_EQ(intel_qsv_node_refusal("", "", QsvRuntime::kOneVpl), "");  // only opening tells
  std::string no_qsv = intel_qsv_node_refusal("", "", QsvRuntime::kNone);
  EXPECT_NE(no_qsv.find("built without QSV"), std::string::npos) << no_qsv;
  EXPECT_NE(no_qsv.find("generation not known (its PCI id is not in our table)"), std::string::npos)
      << no_qsv;
  std::string hint = intel_qsv_open_hint("", "");
  EXPECT_NE(hint.find("libmfx-gen1.2"), std::string::npos) << hint;
  EXPECT_NE(hint.find("this GPU: generation not known (its PCI id is not in our table)"),
            std::string::npos)
      << hint;
  EXPECT_NE(intel_qsv_open_hint("tgl", "UHD Graphics 770 (ADL-S)")
                .find("this GPU: UHD Graphics 770 (ADL-S), generation tgl"),
            std::string::npos);
  // The assumed profiles carry their generation, as discovery's PCI id lookup does.
  EXPECT_EQ(assume_intel_device("cfl")->generation, "kbl");
}

// VP9 VDEnc on ICL, EHL/JSL and TGLx is there only with HuC: without it iHD lists no VP9
// encoder (not a CQP-only one); DG2's VP9 encoder is there either way.
TEST(IntelProfiles, Vp9LowPowerEncodeBeforeDg2NeedsHuc) {
  for (const char* key : {"icl", "ehl", "tgl", "dg1"}) {
    EXPECT_FALSE(assume_intel_device(std::string(key) + ":no-huc")->encodes(AV_CODEC_ID_VP9))
        << key;
    EXPECT_TRUE(assume_intel_device(std::string(key) + ":huc")->encodes(AV_CODEC_ID_VP9)) << key;
  }
  EXPECT_TRUE(assume_intel_device("dg2:no-huc")->encodes(AV_CODEC_ID_VP9));
}

// BDW and BXTx, missing before: H.264 by the shader encoder on both, HEVC on BXTx alone.
TEST(IntelProfiles, BroadwellAndApolloLakeHaveTheirRows) {
  HwDevice bdw = *assume_intel_device("bdw");
  EXPECT_TRUE(bdw.encodes(AV_CODEC_ID_H264));
  EXPECT_FALSE(bdw.decodes(AV_CODEC_ID_HEVC, 8));
  EXPECT_FALSE(bdw.encode.at(AV_CODEC_ID_H264).low_power);
  HwDevice glk = *assume_intel_device("glk");
  EXPECT_TRUE(glk.decodes(AV_CODEC_ID_HEVC, 10));
  EXPECT_TRUE(glk.encodes(AV_CODEC_ID_HEVC));
  EXPECT_TRUE(glk.decodes(AV_CODEC_ID_VP9, 8));
  EXPECT_FALSE(glk.decodes(AV_CODEC_ID_VP9, 10));
}

}  // namespace
}  // namespace tc
