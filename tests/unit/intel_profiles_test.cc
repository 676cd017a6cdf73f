// The Intel profile table and what the planner makes of it: PCI ids to generations, devices
// filled through the same apply_va_caps as libva's answers, and the decode/encode decisions
// against profile, chroma, size and rate-control modes.
#include "pipeline/hw/intel_profiles.h"

#include <gtest/gtest.h>
#include <va/va.h>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/pixdesc.h>
}

#include "pipeline/exec/stages.h"
#include "pipeline/hw/decode_caps.h"
#include "pipeline/plan/plan.h"
#include "tests/unit/fixtures.h"

namespace tc {
namespace {

using testing::inventory;
using testing::job;
using testing::output;

HwDevice assumed(const std::string& spec) {
  return testing::value_or_stop(assume_intel_device(spec));
}

const DecodeProfile* decode_profile(const HwDevice& device, int va_profile) {
  for (const DecodeProfile& profile : device.decode_profiles)
    if (profile.va_profile == va_profile) return &profile;
  return nullptr;
}

MediaInfo media_of(AVCodecID codec, int codec_profile, AVPixelFormat format, int width = 1920,
                   int height = 1080) {
  MediaInfo info = testing::media(codec, width, height);
  info.video->codec_profile = codec_profile;
  info.video->pix_fmt = format;
  const AVPixFmtDescriptor* desc = av_pix_fmt_desc_get(format);
  info.video->bit_depth = desc->comp[0].depth;
  return info;
}

Result<Plan> plan_on(const std::string& profile, const MediaInfo& media,
                     std::vector<OutputSpec> outputs = {output("o.mp4", 1280, 720)}) {
  return make_plan(job(std::move(outputs), BackendKind::kVaapi), media,
                   inventory({assumed(profile)}));
}

TEST(IntelPciIds, RealIdsNameTheGpuAndItsGeneration) {
  EXPECT_EQ(intel_model_name(0x56A5), "Arc A380 (DG2)");
  EXPECT_EQ(intel_generation_of(0x56A5), "dg2");
  EXPECT_EQ(intel_model_name(0x56C1), "Data Center GPU Flex 140 (ATS-M)");
  EXPECT_EQ(intel_generation_of(0x56C0), "dg2");
  EXPECT_EQ(intel_generation_of(0x9A49), "tgl");
  EXPECT_EQ(intel_generation_of(0x4680), "tgl");  // Alder Lake-S shares TGLx's media engine
  EXPECT_EQ(intel_generation_of(0x3E92), "kbl");  // Coffee Lake is KBLx
  EXPECT_EQ(intel_generation_of(0x8A52), "icl");
  EXPECT_EQ(intel_generation_of(0x7D55), "mtl");
  EXPECT_EQ(intel_generation_of(0x64A0), "lnl");
  EXPECT_EQ(intel_model_name(0xE20B), "Arc B580 (BMG)");
  EXPECT_EQ(intel_model_name(0x1234), "");
  EXPECT_EQ(intel_generation_of(0x1234), "");
}

TEST(IntelProfiles, EveryGenerationIsAssumableAndScales) {
  std::vector<IntelProfileSummary> profiles = intel_profiles();
  ASSERT_GE(profiles.size(), 10u);
  for (const IntelProfileSummary& profile : profiles) {
    HwDevice device = assumed(std::string(profile.key));
    EXPECT_TRUE(device.usable());
    EXPECT_TRUE(device.can_scale) << profile.key;
    EXPECT_TRUE(device.decodes(AV_CODEC_ID_H264, 8)) << profile.key;
    EXPECT_TRUE(device.encodes(AV_CODEC_ID_H264)) << profile.key;
    EXPECT_EQ(device.driver, profile.kernel_driver);
  }
}

TEST(IntelProfiles, UnknownNameListsTheKnownOnes) {
  Result<HwDevice> device = assume_intel_device("gen42");
  ASSERT_FALSE(device.is_ok());
  EXPECT_EQ(device.status().code(), Code::kInvalidArgument);
  EXPECT_NE(device.status().message().find("dg2"), std::string::npos);
  EXPECT_FALSE(assume_intel_device("tgl:turbo").is_ok());
}

TEST(IntelProfiles, AliasesNameTheirGeneration) {
  EXPECT_EQ(assumed("arc").vendor, "Intel iHD driver (assumed: dg2)");
  EXPECT_EQ(assumed("flex").vendor, "Intel iHD driver (assumed: dg2)");
  EXPECT_EQ(assumed("cfl").vendor, "Intel iHD driver (assumed: kbl)");
  EXPECT_EQ(assumed("adl").vendor, "Intel iHD driver (assumed: tgl)");
}

TEST(IntelProfiles, ArcEncodesOnlyInLowPowerAndHasAv1) {
  HwDevice dg2 = assumed("dg2");
  EXPECT_TRUE(dg2.encode.at(AV_CODEC_ID_H264).low_power);
  EXPECT_FALSE(dg2.encode.at(AV_CODEC_ID_H264).full);
  EXPECT_TRUE(dg2.encodes(AV_CODEC_ID_AV1));
  EXPECT_FALSE(dg2.decodes(AV_CODEC_ID_VC1, 8));  // no VC-1 from DG2 on
  EXPECT_EQ(dg2.encode.at(AV_CODEC_ID_HEVC).max_width, 16384);
  EXPECT_EQ(dg2.encode.at(AV_CODEC_ID_HEVC).max_height, 12288);
}

TEST(IntelProfiles, FromMeteorLakeEncodeIsTheUnifiedEntrypoint) {
  HwDevice mtl = assumed("mtl");
  EXPECT_TRUE(mtl.encode.at(AV_CODEC_ID_HEVC).full);
  EXPECT_FALSE(mtl.encode.at(AV_CODEC_ID_HEVC).low_power);
  HwDevice lnl = assumed("lnl");
  EXPECT_EQ(lnl.driver, "xe");
  EXPECT_TRUE(lnl.decodes(AV_CODEC_ID_VP9, 10));
  EXPECT_FALSE(lnl.encodes(AV_CODEC_ID_VP9));
}

TEST(IntelProfiles, DepthAndChromaPerProfile) {
  HwDevice skl = assumed("skl");
  EXPECT_FALSE(skl.decodes(AV_CODEC_ID_HEVC, 10));
  EXPECT_FALSE(skl.decodes(AV_CODEC_ID_VP9, 8));
  HwDevice kbl = assumed("kbl");
  ASSERT_NE(decode_profile(kbl, VAProfileVP9Profile2), nullptr);
  EXPECT_EQ(decode_profile(kbl, VAProfileVP9Profile2)->bit_depth, 10);
  EXPECT_EQ(decode_profile(kbl, VAProfileVP9Profile1), nullptr);
  HwDevice tgl = assumed("tgl");
  EXPECT_EQ(decode_profile(tgl, VAProfileVP9Profile2)->bit_depth, 12);  // 12-bit from TGL
  EXPECT_EQ(decode_profile(tgl, VAProfileHEVCMain444_10)->chroma, 444);
  EXPECT_EQ(decode_profile(tgl, VAProfileMPEG2Main)->max_width, 2048);
}

TEST(IntelProfiles, LowPowerBitrateModesFollowHuc) {
  EncodeEntrypoints icl = assumed("icl").encode.at(AV_CODEC_ID_H264);
  EXPECT_EQ(icl.low_power_rate_control, va_rc::kCqp);  // Gen11 boots without HuC
  EXPECT_TRUE(icl.full_rate_control & va_rc::kCbr);
  EXPECT_TRUE(assumed("icl:huc").encode.at(AV_CODEC_ID_H264).low_power_rate_control & va_rc::kVbr);
  EXPECT_TRUE(assumed("dg2").encode.at(AV_CODEC_ID_H264).low_power_rate_control & va_rc::kCbr);
  EXPECT_EQ(assumed("dg2:no-huc:xe").encode.at(AV_CODEC_ID_H264).low_power_rate_control,
            va_rc::kCqp);
  EXPECT_EQ(assumed("dg2:xe").driver, "xe");
}

// What a dry run prints after "HuC: ": the assumption, what the kernels do, the other spec.
TEST(IntelProfiles, TheHucAssumptionIsSaidWithTheSpecForTheOtherCase) {
  HwDevice tgl = assumed("tgl");
  EXPECT_EQ(tgl.huc_running, std::optional<bool>(true));
  for (const char* fact : {"assumed running on i915 (--assume-device tgl: the generation's usual",
                           "TGL, RKL: not by default (boot with i915.enable_guc=2)",
                           "ADL-S, ADL-P: from Linux 5.17", "plan with tgl:no-huc"})
    EXPECT_NE(tgl.huc_seen.find(fact), std::string::npos) << fact << "\n" << tgl.huc_seen;

  HwDevice without = assumed("rkl:no-huc");
  EXPECT_EQ(without.huc_running, std::optional<bool>(false));
  EXPECT_NE(without.huc_seen.find("assumed not running on i915 (--assume-device rkl:no-huc): "
                                  "low-power (VDEnc) encode is CQP-only"),
            std::string::npos)
      << without.huc_seen;
  EXPECT_EQ(without.huc_seen.find("plan with"), std::string::npos) << without.huc_seen;

  EXPECT_NE(assumed("bmg").huc_seen.find("assumed running on xe"), std::string::npos);
  HwDevice xe_without = assumed("dg2:xe:no-huc");
  EXPECT_EQ(xe_without.huc_running, std::optional<bool>(false));
  EXPECT_NE(xe_without.huc_seen.find("assumed not running on xe"), std::string::npos)
      << xe_without.huc_seen;
  EXPECT_NE(assumed("icl").huc_seen.find("where HuC runs, plan with icl:huc"), std::string::npos);
}

// ---- the planner against a profile ----

TEST(ProfilePlan, H264High422DecodesInSoftwareAndUploads) {
  Result<Plan> plan = plan_on("tgl", media_of(AV_CODEC_ID_H264, 122, AV_PIX_FMT_YUV422P));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_FALSE(plan->decode.hw);
  EXPECT_TRUE(plan->decode.upload);
  EXPECT_EQ(plan->video_graph.uploads, 1);
  EXPECT_NE(plan->decode.note.find("H.264 4:2:2 8-bit has no VA-API decode profile"),
            std::string::npos)
      << plan->decode.note;
  EXPECT_EQ(plan->outputs[0].video.encoder, "h264_vaapi");  // encode stays on the GPU
}

TEST(ProfilePlan, BaselineNeedsConstraintSet1) {
  Result<Plan> baseline = plan_on("tgl", media_of(AV_CODEC_ID_H264, 66, AV_PIX_FMT_YUV420P));
  ASSERT_TRUE(baseline.is_ok());
  EXPECT_FALSE(baseline->decode.hw);
  EXPECT_NE(baseline->decode.note.find("constraint_set1"), std::string::npos);
  Result<Plan> constrained =
      plan_on("tgl", media_of(AV_CODEC_ID_H264, 66 | (1 << 9), AV_PIX_FMT_YUV420P));
  ASSERT_TRUE(constrained.is_ok());
  EXPECT_TRUE(constrained->decode.hw) << constrained->decode.note;
}

TEST(ProfilePlan, Vp9Profile1NeedsGen11) {
  MediaInfo vp9_444 = media_of(AV_CODEC_ID_VP9, 1, AV_PIX_FMT_YUV444P);
  Result<Plan> kbl = plan_on("kbl", vp9_444);
  ASSERT_TRUE(kbl.is_ok());
  EXPECT_FALSE(kbl->decode.hw);
  EXPECT_NE(kbl->decode.note.find("VP9Profile1"), std::string::npos) << kbl->decode.note;
  Result<Plan> icl = plan_on("icl", vp9_444);
  ASSERT_TRUE(icl.is_ok());
  // FFmpeg 5.1's vp9.c get_format() offers VA-API for 4:2:0 only: software even on ICL.
  EXPECT_EQ(icl->decode.hw, LIBAVCODEC_VERSION_MAJOR >= 61) << icl->decode.note;
}

TEST(ProfilePlan, HevcRext422ByGeneration) {
  MediaInfo rext = media_of(AV_CODEC_ID_HEVC, 4, AV_PIX_FMT_YUV422P10LE);
  EXPECT_TRUE(plan_on("icl", rext)->decode.hw);
  EXPECT_FALSE(plan_on("kbl", rext)->decode.hw);
  MediaInfo twelve = media_of(AV_CODEC_ID_HEVC, 4, AV_PIX_FMT_YUV420P12LE);
  EXPECT_FALSE(plan_on("icl", twelve)->decode.hw);
  // FFmpeg 5.1's hevcdec.c get_format() offers VA-API for 12-bit from 7.1 only.
  EXPECT_EQ(plan_on("tgl", twelve)->decode.hw, LIBAVCODEC_VERSION_MAJOR >= 61);
}

TEST(ProfilePlan, OversizeFramesDecodeInSoftwareWithTheLimit) {
  Result<Plan> plan =
      plan_on("tgl", media_of(AV_CODEC_ID_H264, 100, AV_PIX_FMT_YUV420P, 5120, 2880));
  ASSERT_TRUE(plan.is_ok());
  EXPECT_FALSE(plan->decode.hw);
  EXPECT_NE(plan->decode.note.find("5120x2880 exceeds the H264High decoder's maximum 4096x4096"),
            std::string::npos)
      << plan->decode.note;
}

TEST(ProfilePlan, OversizeOutputEncodesInSoftware) {
  Result<Plan> plan = plan_on("tgl", media_of(AV_CODEC_ID_HEVC, 1, AV_PIX_FMT_YUV420P, 7680, 4320),
                              {output("o.mp4", 7680, 4320)});
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_TRUE(plan->decode.hw);
  EXPECT_EQ(plan->outputs[0].video.encoder, "libx264");
  EXPECT_NE(plan->outputs[0].video.note.find("exceeds the h264 encoder's maximum 4096x4096"),
            std::string::npos)
      << plan->outputs[0].video.note;
}

OutputSpec bitrate_output(RateControl mode) {
  OutputSpec spec = output("o.mp4", 1280, 720);
  spec.rate_control = mode;
  spec.bitrate = 4'000'000;
  return spec;
}

std::string option(const VideoEncodePlan& plan, const std::string& key) {
  for (const auto& [name, value] : plan.options)
    if (name == key) return value;
  return "<unset>";
}

TEST(ProfilePlan, BitrateWithoutHucTakesTheFullEntrypoint) {
  Result<Plan> plan = plan_on("icl", testing::media(), {bitrate_output(RateControl::kCbr)});
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_EQ(option(plan->outputs[0].video, "low_power"), "0");
  EXPECT_EQ(option(plan->outputs[0].video, "rc_mode"), "CBR");
}

TEST(ProfilePlan, BitrateOnLowPowerOnlyWithoutHucIsRefusedSayingWhatToEnable) {
  Result<Plan> plan = plan_on("ehl", testing::media(), {bitrate_output(RateControl::kVbr)});
  ASSERT_FALSE(plan.is_ok());
  EXPECT_EQ(plan.status().code(), Code::kUnsupported);
  EXPECT_NE(plan.status().message().find("VBR"), std::string::npos);
  EXPECT_NE(plan.status().message().find("enable_guc=2"), std::string::npos);
  // What was read (here: assumed) of HuC, so that the refusal says why VDEnc is CQP-only.
  EXPECT_NE(plan.status().message().find("HuC here: assumed not running on i915"),
            std::string::npos)
      << plan.status().message();
  EXPECT_TRUE(plan_on("ehl:huc", testing::media(), {bitrate_output(RateControl::kVbr)}).is_ok());
  // Constant quality needs no HuC.
  EXPECT_TRUE(plan_on("ehl", testing::media()).is_ok());
}

TEST(ProfilePlan, ArcUsesLowPower) {
  Result<Plan> plan = plan_on("dg2", testing::media(), {bitrate_output(RateControl::kCbr)});
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_EQ(option(plan->outputs[0].video, "low_power"), "1");
}

bool has_vaapi_config(const AVCodec* decoder) {
  for (int i = 0; const AVCodecHWConfig* config = avcodec_get_hw_config(decoder, i); ++i)
    if (config->device_type == AV_HWDEVICE_TYPE_VAAPI) return true;
  return false;
}

TEST(ProfilePlan, Av1DecodesWithTheDecoderThatHasAVaapiConfig) {
  const AVCodec* native = avcodec_find_decoder_by_name("av1");
  if (!native || !has_vaapi_config(native))
    GTEST_SKIP() << "this FFmpeg has no av1 decoder with a VA-API hw config";
  Result<Plan> plan = plan_on("tgl", media_of(AV_CODEC_ID_AV1, 0, AV_PIX_FMT_YUV420P));
  ASSERT_TRUE(plan.is_ok());
  EXPECT_TRUE(plan->decode.hw) << plan->decode.note;
  EXPECT_EQ(plan->decode.decoder, "av1");  // not libdav1d
}

TEST(ProfilePlan, HwDecodePlansAnUploadingGraphForARefusalAtRunTime) {
  Result<Plan> plan = plan_on("tgl", testing::media());
  ASSERT_TRUE(plan.is_ok());
  ASSERT_TRUE(plan->decode.hw);
  EXPECT_EQ(plan->video_graph.uploads, 0);
  EXPECT_EQ(plan->fallback_video_graph.uploads, 1);
  EXPECT_EQ(plan->fallback_video_graph.sinks.size(), plan->video_graph.sinks.size());
  Result<Plan> software = plan_on("tgl", media_of(AV_CODEC_ID_H264, 66, AV_PIX_FMT_YUV420P));
  EXPECT_TRUE(software->fallback_video_graph.empty());
}

TEST(GetFormatFallback, TakesTheSoftwareFormatWhenTheHwaccelIsNotOffered) {
  const AVPixelFormat with_software[] = {AV_PIX_FMT_VAAPI, AV_PIX_FMT_YUV422P, AV_PIX_FMT_NONE};
  EXPECT_EQ(software_format(with_software), AV_PIX_FMT_YUV422P);
  const AVPixelFormat hw_only[] = {AV_PIX_FMT_VAAPI, AV_PIX_FMT_NONE};
  EXPECT_EQ(software_format(hw_only), AV_PIX_FMT_NONE);
}

}  // namespace
}  // namespace tc
