// Issue 37, second pass: plans that a real Intel GPU accepts, decided per GPU (its profile) and
// per FFmpeg version, without a GPU. Each case cites where the fact comes from.
#include <gtest/gtest.h>
#include <va/va.h>

#include <cstring>
#include <set>
#include <tuple>
#include <vector>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavcodec/version.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
}

#include "pipeline/exec/stages.h"
#include "pipeline/hw/backends.h"
#include "pipeline/hw/intel_profiles.h"
#include "pipeline/hw/va_caps.h"
#include "pipeline/hw/va_profiles.h"
#include "pipeline/plan/cores.h"
#include "pipeline/plan/plan.h"
#include "tests/unit/fixtures.h"
#include "tests/unit/graph_parse.h"

namespace tc {
namespace {

using testing::inventory;
using testing::job;
using testing::output;

HwDevice assumed(const std::string& spec) {
  return testing::value_or_stop(assume_intel_device(spec));
}

MediaInfo source(AVCodecID codec, int codec_profile, AVPixelFormat format) {
  MediaInfo info = testing::media(codec);
  info.video->codec_profile = codec_profile;
  info.video->pix_fmt = format;
  info.video->bit_depth = av_pix_fmt_desc_get(format)->comp[0].depth;
  return info;
}

// HEVC Main 10 HDR10 (PQ, BT.2020), as a UHD Blu-ray rip or a phone's HDR clip.
MediaInfo hdr10_source() {
  MediaInfo info = source(AV_CODEC_ID_HEVC, 2, AV_PIX_FMT_YUV420P10LE);
  info.video->color = {AVCOL_PRI_BT2020, AVCOL_TRC_SMPTE2084, AVCOL_SPC_BT2020_NCL,
                       AVCOL_RANGE_MPEG};
  return info;
}

OutputSpec hevc_output(HdrMode hdr = HdrMode::kAuto) {
  OutputSpec spec = output("o.mp4", 1280, 720, VideoCodec::kHevc);
  spec.hdr = hdr;
  return spec;
}

Result<Plan> plan_on(const std::string& profile, const MediaInfo& media, OutputSpec spec,
                     BackendKind backend = BackendKind::kVaapi) {
  HwDevice device = assumed(profile);
  if (backend == BackendKind::kQsv) device = qsv_device_on(device);
  return make_plan(job({std::move(spec)}, backend), media, inventory({device}));
}

bool has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

// ---- 10-bit output per GPU ----

// media-driver README, SKL column: HEVC "D/Es" for 8-bit only, no HEVC 10-bit encode.
TEST(IntelTruth, SkylakeEncodesA10BitHevcSourceAsMainNv12AndSaysSo) {
  Result<Plan> plan =
      plan_on("skl", source(AV_CODEC_ID_HEVC, 2, AV_PIX_FMT_YUV420P10LE), hevc_output());
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  const VideoEncodePlan& video = plan->outputs[0].video;
  EXPECT_EQ(video.encoder, "hevc_vaapi");
  EXPECT_EQ(video.format.bit_depth, 8);
  EXPECT_EQ(video.format.profile, "Main");
  EXPECT_EQ(video.pix_fmt, AV_PIX_FMT_NV12);
  EXPECT_TRUE(has(plan->video_graph.text, "scale_vaapi=w=1280:h=720:format=nv12"))
      << plan->video_graph.text;
  EXPECT_TRUE(has(describe(*plan),
                  "hevc_vaapi (full, 8-bit: this GPU's hevc_vaapi encodes "
                  "8-bit only (no 10-bit hevc profile on its full entrypoint))"))
      << describe(*plan);
  // Tiger Lake has HEVC Main10 encode: the same job keeps 10 bits there.
  Result<Plan> tgl =
      plan_on("tgl", source(AV_CODEC_ID_HEVC, 2, AV_PIX_FMT_YUV420P10LE), hevc_output());
  ASSERT_TRUE(tgl.is_ok());
  EXPECT_EQ(tgl->outputs[0].video.format.bit_depth, 10);
  EXPECT_EQ(tgl->outputs[0].video.pix_fmt, AV_PIX_FMT_P010);
}

// media-driver README, KBLx column: HEVC 10-bit "D/Es" (the shader encoder). But every device
// branch passes scale_vaapi, and Gen9's VPP writes no P010 (docs/media_features.md,
// "Supported Video Processing CSC/Scaling Format"; VphalSfcStateG9::IsOutputFormatSupported):
// the plan encodes Main from nv12 and says why, not scale_vaapi=format=p010, which fails there.
TEST(IntelTruth, KabyLakeEncodesMain10OnTheShaderEncoderButItsVppWritesNo10Bit) {
  EXPECT_EQ(assumed("kbl").encode.at(AV_CODEC_ID_HEVC).full_bit_depth, 10);
  EXPECT_EQ(assumed("skl").encode.at(AV_CODEC_ID_HEVC).full_bit_depth, 8);
  Result<Plan> plan =
      plan_on("kbl", source(AV_CODEC_ID_HEVC, 2, AV_PIX_FMT_YUV420P10LE), hevc_output());
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  const VideoEncodePlan& video = plan->outputs[0].video;
  EXPECT_TRUE(plan->decode.hw) << plan->decode.note;  // KBL decodes HEVC Main10
  EXPECT_EQ(video.encoder, "hevc_vaapi");
  EXPECT_FALSE(video.low_power);
  EXPECT_EQ(video.format.profile, "Main");
  EXPECT_EQ(video.pix_fmt, AV_PIX_FMT_NV12);
  EXPECT_TRUE(has(plan->video_graph.text, "scale_vaapi=w=1280:h=720:format=nv12"))
      << plan->video_graph.text;
  EXPECT_FALSE(has(plan->video_graph.text, "p010")) << plan->video_graph.text;
  EXPECT_TRUE(has(video.note, "8-bit: this GPU's VPP writes no 10-bit frames (P010)"))
      << video.note;
  // Ice Lake's VPP writes P010: the same job keeps Main 10 there.
  Result<Plan> icl =
      plan_on("icl", source(AV_CODEC_ID_HEVC, 2, AV_PIX_FMT_YUV420P10LE), hevc_output());
  ASSERT_TRUE(icl.is_ok());
  EXPECT_EQ(icl->outputs[0].video.format.profile, "Main 10");
  EXPECT_TRUE(has(icl->video_graph.text, "format=p010")) << icl->video_graph.text;
}

// Frames decoded in memory (no VA profile for the source here) are converted to nv12 before
// the upload where the VPP cannot read P010 (Broadwell) or cannot write it (Gen9: its scalers
// would make nv12 of them anyway), and the decode stage says so; where the VPP does both
// (Ice Lake and newer) a 10-bit output is uploaded as p010. The graphs (the fallback's too)
// are read by this libavfilter.
TEST(IntelTruth, TenBitDecodedInMemoryIsUploadedAsNv12WhereVppHasNoP010) {
  struct Case {
    std::string profile;
    MediaInfo media;
    OutputSpec output;
    std::string upload;
    std::string why;  // in the decode stage's note; "" = none
  };
  // SKL and BDW have no HEVC Main10 decode, ICL no AV1 decode (README's tables).
  MediaInfo hevc10 = source(AV_CODEC_ID_HEVC, 2, AV_PIX_FMT_YUV420P10LE);
  MediaInfo av1_10 = source(AV_CODEC_ID_AV1, 0, AV_PIX_FMT_YUV420P10LE);
  std::vector<Case> cases = {{"skl", hevc10, output("o.mp4", 1280, 720), "format=nv12,hwupload",
                              "uploaded as nv12: this GPU's VPP writes no 10-bit frames (P010)"},
                             {"kbl", av1_10, output("o.mp4", 1280, 720), "format=nv12,hwupload",
                              "uploaded as nv12: this GPU's VPP writes no 10-bit frames (P010)"},
                             {"bdw", hevc10, output("o.mp4", 1280, 720), "format=nv12,hwupload",
                              "uploaded as nv12: this GPU's VPP reads no 10-bit frames (P010)"},
                             {"icl", av1_10, hevc_output(), "format=p010le,hwupload", ""}};
  for (const Case& c : cases) {
    Result<Plan> plan = plan_on(c.profile, c.media, c.output);
    ASSERT_TRUE(plan.is_ok()) << c.profile << ": " << plan.status().to_string();
    EXPECT_FALSE(plan->decode.hw) << c.profile;
    EXPECT_TRUE(plan->decode.upload) << c.profile;
    const std::string& graph = plan->video_graph.text;
    EXPECT_TRUE(has(graph, c.upload)) << c.profile << ": " << graph;
    if (c.why.empty()) {
      EXPECT_FALSE(has(plan->decode.note, "uploaded as")) << plan->decode.note;
      EXPECT_EQ(plan->outputs[0].video.format.bit_depth, 10) << c.profile;
    } else {
      EXPECT_TRUE(has(plan->decode.note, c.why)) << c.profile << ": " << plan->decode.note;
      EXPECT_TRUE(has(describe(*plan), c.why)) << describe(*plan);
      EXPECT_FALSE(has(graph, "p010")) << c.profile << ": " << graph;
      EXPECT_EQ(plan->outputs[0].video.pix_fmt, AV_PIX_FMT_NV12) << c.profile;
    }
    testing::ParsedGraph parsed = testing::parse_graph(graph);
    EXPECT_EQ(parsed.refusal, "") << c.profile << ": " << graph;
    EXPECT_TRUE(parsed.filter_names.count("hwupload")) << graph;
  }
  // A GPU that decodes the source uploads nothing; its graph for frames that its hwaccel
  // refuses at run time (decoded in memory then) uploads as above.
  Result<Plan> kbl = plan_on("kbl", hevc10, output("o.mp4", 1280, 720));
  ASSERT_TRUE(kbl.is_ok());
  EXPECT_TRUE(kbl->decode.hw);
  EXPECT_EQ(kbl->video_graph.uploads, 0);
  EXPECT_TRUE(has(kbl->fallback_video_graph.text, "format=nv12,hwupload"))
      << kbl->fallback_video_graph.text;
  EXPECT_EQ(testing::parse_graph(kbl->fallback_video_graph.text).refusal, "");
}

// Where the VPP writes no P010, frames downloaded after a VPP scaler are 8-bit: the HDR
// tone-map in memory reads nv12 (scale_vaapi=format=p010 fails on Gen9). A 10-bit output
// encoded in memory (--hdr keep with libx265) passes no VPP step: it downloads the decoder's
// P010 surfaces (hwdownload maps the surface; Gen9's VDBOX decodes Main 10 into P010) and
// scales in memory, so libx265 gets 10-bit frames all the way: no nv12 in its branch, and its
// stage no longer says "from 8-bit frames". Broadwell's VPP reads no P010 (docs/media_features.md):
// its uploads are nv12, and there the stage still says so.
TEST(IntelTruth, DownloadsFromAVppWithoutP010AreEightBit) {
  for (const std::string profile : {"skl", "kbl"}) {
    Result<Plan> plan = plan_on(profile, hdr10_source(), output("o.mp4", 1280, 720));
    ASSERT_TRUE(plan.is_ok()) << profile << ": " << plan.status().to_string();
    const std::string& graph = plan->video_graph.text;
    EXPECT_TRUE(has(graph, "format=nv12,hwdownload") || has(graph, "hwdownload,format=nv12"))
        << profile << ": " << graph;
    EXPECT_FALSE(has(graph, "p010")) << profile << ": " << graph;
    EXPECT_EQ(testing::parse_graph(graph).refusal, "") << graph;
  }
  Result<Plan> keep = plan_on("kbl", hdr10_source(), hevc_output(HdrMode::kKeep));
  ASSERT_TRUE(keep.is_ok()) << keep.status().to_string();
  const VideoEncodePlan& video = keep->outputs[0].video;
  EXPECT_TRUE(keep->decode.hw) << keep->decode.note;
  EXPECT_EQ(video.encoder, "libx265");
  EXPECT_EQ(video.format.bit_depth, 10);
  EXPECT_EQ(video.pix_fmt, AV_PIX_FMT_YUV420P10LE);
  const std::string& graph = keep->video_graph.text;
  EXPECT_EQ(graph, "[in]hwdownload,format=p010le,scale=1280:720,format=yuv420p10le[out0]");
  EXPECT_FALSE(has(graph, "nv12")) << graph;
  EXPECT_FALSE(has(video.note, "from 8-bit frames")) << video.note;
  EXPECT_TRUE(has(video.note, "scaled in memory from 10-bit frames")) << video.note;
  EXPECT_EQ(testing::parse_graph(graph).refusal, "") << graph;
  // Frames its hwaccel refuses at run time are uploaded as p010 (Gen9's VPP reads it).
  const std::string& fallback = keep->fallback_video_graph.text;
  EXPECT_TRUE(has(fallback, "format=p010le,hwupload,hwdownload,format=p010le")) << fallback;
  EXPECT_FALSE(has(fallback, "nv12")) << fallback;
  EXPECT_EQ(testing::parse_graph(fallback).refusal, "") << fallback;
  // Broadwell: nv12 up, so 8-bit frames, and the stage says so.
  Result<Plan> bdw = plan_on("bdw", hdr10_source(), hevc_output(HdrMode::kKeep));
  ASSERT_TRUE(bdw.is_ok()) << bdw.status().to_string();
  EXPECT_TRUE(has(bdw->outputs[0].video.note,
                  "from 8-bit frames: this GPU's VPP writes no 10-bit frames (P010)"))
      << bdw->outputs[0].video.note;
}

// One decode feeds both outputs of a Kaby Lake job: the 8-bit output through scale_vaapi (nv12
// from the decoder's P010: Gen9's VPP reads P010), the --hdr keep output downloaded as P010
// before any VPP step. Where the source must be turned (or deinterlaced) first, which Gen9's
// VPP could only do into nv12 (vaapi_vpp.c: those filters write what they read), the turn runs
// in memory on the software decoder's frames, which go up as p010: the 10-bit branch never
// holds 8 bits. Every graph is read by libavfilter.
TEST(IntelTruth, Gen9KeepsHdrInTenBitsFromOneDecode) {
  OutputSpec sdr = output("small.mp4", 640, 360);
  Result<Plan> plan = make_plan(job({hevc_output(HdrMode::kKeep), sdr}, BackendKind::kVaapi),
                                hdr10_source(), inventory({assumed("kbl")}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_TRUE(plan->decode.hw) << plan->decode.note;
  const std::string& graph = plan->video_graph.text;
  EXPECT_TRUE(has(graph, "split=2")) << graph;
  EXPECT_TRUE(has(graph, "hwdownload,format=p010le,scale=1280:720,format=yuv420p10le[out0]"))
      << graph;
  EXPECT_TRUE(has(graph, "scale_vaapi=w=640:h=360:format=nv12")) << graph;
  EXPECT_FALSE(has(graph, "format=p010:")) << graph;  // no VPP asked for P010
  testing::ParsedGraph parsed = testing::parse_graph(graph);
  EXPECT_EQ(parsed.refusal, "") << graph;
  EXPECT_EQ(parsed.open_outputs, (std::set<std::string>{"out0", "out1"})) << graph;

  MediaInfo turned = hdr10_source();
  turned.video->rotation_deg = -90;
  Result<Plan> upright = plan_on("kbl", turned, hevc_output(HdrMode::kKeep));
  ASSERT_TRUE(upright.is_ok()) << upright.status().to_string();
  EXPECT_FALSE(upright->decode.hw);
  EXPECT_TRUE(has(upright->decode.note,
                  "the source is turned upright in memory, so that an output scaled in memory "
                  "keeps its 10 bits: this GPU's VPP writes no 10-bit frames (P010)"))
      << upright->decode.note;
  EXPECT_FALSE(upright->orientation.on_device);
  const std::string& turned_graph = upright->video_graph.text;
  EXPECT_EQ(turned_graph.rfind("[in]transpose=dir=clock,format=p010le,hwupload", 0), 0u)
      << turned_graph;
  EXPECT_FALSE(has(turned_graph, "nv12")) << turned_graph;
  EXPECT_FALSE(has(turned_graph, "_vaapi")) << turned_graph;
  EXPECT_EQ(testing::parse_graph(turned_graph).refusal, "") << turned_graph;
}

// A phone's HEVC Main 10 HLG clip, recorded turned (display matrix -90: 90 degrees clockwise
// upright), and an interlaced 10-bit source: Kaby Lake decodes both into P010 surfaces.
MediaInfo turned_hlg_phone_clip() {
  MediaInfo info = source(AV_CODEC_ID_HEVC, 2, AV_PIX_FMT_YUV420P10LE);
  info.video->color = {AVCOL_PRI_BT2020, AVCOL_TRC_ARIB_STD_B67, AVCOL_SPC_BT2020_NCL,
                       AVCOL_RANGE_MPEG};
  info.video->rotation_deg = -90;
  return info;
}

MediaInfo interlaced_ten_bit() {
  MediaInfo info = source(AV_CODEC_ID_HEVC, 2, AV_PIX_FMT_YUV420P10LE);
  info.video->field_order = AV_FIELD_TT;
  return info;
}

// deinterlace_vaapi and transpose_vaapi write the format they read (FFmpeg 5.1
// vf_deinterlace_vaapi.c / vf_transpose_vaapi.c leave output_format unset; vaapi_vpp.c
// ff_vaapi_vpp_config_output takes the input's sw_format), and Gen9's VPP writes no P010
// (VphalSfcStateG9::IsOutputFormatSupported): on KBL the decoder's P010 surfaces go through
// scale_vaapi=format=nv12 at their own size first (Gen9's VPP reads P010), and the plan says
// why. Ice Lake's VPP writes P010: no conversion there. Frames uploaded as nv12 (the hwaccel
// fallback, Skylake's software decode) need none either. Every graph is read by libavfilter.
TEST(IntelTruth, Gen9ConvertsTenBitSurfacesToNv12BeforeItsDeinterlacerAndTurn) {
  struct Case {
    MediaInfo media;
    OutputSpec output;
    std::string vpp_filter;
  };
  std::vector<Case> cases = {
      {turned_hlg_phone_clip(), output("o.mp4", 720, 1280), "transpose_vaapi"},
      {interlaced_ten_bit(), output("o.mp4", 1280, 720), "deinterlace_vaapi"}};
  for (const Case& c : cases) {
    Result<Plan> plan = plan_on("kbl", c.media, c.output);
    ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
    ASSERT_TRUE(plan->decode.hw) << plan->decode.note;
    const std::string& graph = plan->video_graph.text;
    // Its own pool is sized only where this libavfilter's VA-API pools are fixed (before 7.1).
    std::string convert = "[in]scale_vaapi=w=iw:h=ih:format=nv12";
    if (backend_desc(BackendKind::kVaapi).fixed_pools) convert += ":extra_hw_frames=";
    EXPECT_EQ(graph.rfind(convert, 0), 0u) << graph;
    EXPECT_LT(graph.find("scale_vaapi=w=iw:h=ih:format=nv12"), graph.find(c.vpp_filter)) << graph;
    EXPECT_FALSE(has(graph, "p010")) << graph;
    EXPECT_TRUE(has(describe(*plan), "convert: scale_vaapi (to nv12 before " + c.vpp_filter +
                                         ", which writes the format it reads: this GPU's VPP "
                                         "writes no 10-bit frames (P010))"))
        << describe(*plan);
    testing::ParsedGraph parsed = testing::parse_graph(graph);
    EXPECT_EQ(parsed.refusal, "") << graph;
    EXPECT_EQ(parsed.filter_names.count("scale_vaapi"), 2u) << graph;
    EXPECT_EQ(plan->video_graph.scalers, 2);
    // The hwaccel's fallback uploads nv12: nothing to convert.
    const std::string& fallback = plan->fallback_video_graph.text;
    EXPECT_TRUE(has(fallback, "format=nv12,hwupload," + c.vpp_filter)) << fallback;
    EXPECT_EQ(testing::parse_graph(fallback).refusal, "") << fallback;
    // Skylake decodes it in memory and uploads nv12; Ice Lake's VPP writes P010.
    for (const std::string profile : {"skl", "icl"}) {
      Result<Plan> other = plan_on(profile, c.media, c.output);
      ASSERT_TRUE(other.is_ok()) << profile;
      EXPECT_FALSE(other->device_convert.on()) << profile << ": " << other->video_graph.text;
      EXPECT_FALSE(has(other->video_graph.text, "w=iw:h=ih")) << other->video_graph.text;
    }
  }
}

// Discovery takes the VPP's depth from the PCI id's generation; an unknown one leaves it unset.
TEST(IntelTruth, VppTenBitByGeneration) {
  for (const auto& [generation, reads, writes] :
       std::vector<std::tuple<std::string, bool, bool>>{{"bdw", false, false},
                                                        {"skl", true, false},
                                                        {"bxt", true, false},
                                                        {"kbl", true, false},
                                                        {"icl", true, true},
                                                        {"ehl", true, true},
                                                        {"tgl", true, true},
                                                        {"dg2", true, true},
                                                        {"bmg", true, true}}) {
    HwDevice device;
    set_vpp_ten_bit(generation, device);
    EXPECT_EQ(device.vpp_reads_ten_bit, reads) << generation;
    EXPECT_EQ(device.vpp_writes_ten_bit, writes) << generation;
    EXPECT_EQ(assumed(generation).vpp_writes_ten_bit, writes) << generation;
  }
  HwDevice unknown;
  set_vpp_ten_bit("", unknown);
  EXPECT_FALSE(unknown.vpp_reads_ten_bit.has_value());
  EXPECT_FALSE(unknown.vpp_writes_ten_bit.has_value());
}

TEST(IntelTruth, SkylakeKeepsHdrWithASoftwareEncoder) {
  Result<Plan> plan = plan_on("skl", hdr10_source(), hevc_output(HdrMode::kKeep));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  const VideoEncodePlan& video = plan->outputs[0].video;
  EXPECT_EQ(video.encoder, "libx265");
  EXPECT_EQ(video.format.bit_depth, 10);
  EXPECT_TRUE(has(video.note, "has no 10-bit hevc encode (--hdr keep)")) << video.note;
  // Decoded in memory (no HEVC Main10 VA profile), uploaded as p010 (Gen9's VPP reads it) and
  // downloaded as p010 before any VPP step: 10 bits all the way, no nv12 in the branch.
  const std::string& graph = plan->video_graph.text;
  EXPECT_EQ(graph,
            "[in]format=p010le,hwupload,hwdownload,format=p010le,scale=1280:720,"
            "format=yuv420p10le[out0]");
  EXPECT_FALSE(has(plan->decode.note, "uploaded as nv12")) << plan->decode.note;
  EXPECT_FALSE(has(video.note, "from 8-bit frames")) << video.note;
  EXPECT_EQ(testing::parse_graph(graph).refusal, "") << graph;
}

// ---- HDR10 tone mapping per GPU ----

// docs/media_features.md: VPP HDR10 tone mapping from ICL; none on SKL, KBLx, EHL/JSL.
TEST(IntelTruth, HdrToneMapsInSoftwareWhereVppHasNoToneMapping) {
  for (const std::string profile : {"skl", "kbl", "ehl"}) {
    Result<Plan> plan = plan_on(profile, hdr10_source(), output("o.mp4", 1280, 720));
    ASSERT_TRUE(plan.is_ok()) << profile << ": " << plan.status().to_string();
    const std::string& graph = plan->video_graph.text;
    EXPECT_FALSE(has(graph, "tonemap_vaapi")) << profile << ": " << graph;
    EXPECT_TRUE(has(graph, "hwdownload")) << profile << ": " << graph;
    EXPECT_TRUE(has(graph, "tonemap=tonemap=hable")) << profile << ": " << graph;
    EXPECT_FALSE(plan->outputs[0].video.format.to_sdr_on_device);
    EXPECT_TRUE(has(describe(*plan),
                    "zscale+tonemap (hable) on the cpu (this GPU's VPP has "
                    "no HDR tone mapping)"))
        << describe(*plan);
    testing::ParsedGraph parsed = testing::parse_graph(graph);
    EXPECT_EQ(parsed.refusal, "") << profile << ": " << graph;
  }
  for (const std::string profile : {"icl", "tgl"}) {
    Result<Plan> plan = plan_on(profile, hdr10_source(), output("o.mp4", 1280, 720));
    ASSERT_TRUE(plan.is_ok()) << profile << ": " << plan.status().to_string();
    EXPECT_TRUE(has(plan->video_graph.text, "tonemap_vaapi")) << plan->video_graph.text;
    EXPECT_EQ(plan->video_graph.downloads, 0);
  }
}

// vf_tonemap_vaapi.c wants an HDR10 cap with VA_TONE_MAPPING_HDR_TO_SDR.
TEST(IntelTruth, ToneMappingCapsNeedHdr10ToSdr) {
  VAProcFilterCapHighDynamicRange hdr10_to_sdr{};
  hdr10_to_sdr.metadata_type = VAProcHighDynamicRangeMetadataHDR10;
  hdr10_to_sdr.caps_flag = VA_TONE_MAPPING_HDR_TO_SDR;
  VAProcFilterCapHighDynamicRange hdr10_to_hdr = hdr10_to_sdr;
  hdr10_to_hdr.caps_flag = VA_TONE_MAPPING_HDR_TO_HDR;
  EXPECT_TRUE(tonemaps_hdr10({hdr10_to_hdr, hdr10_to_sdr}));
  EXPECT_FALSE(tonemaps_hdr10({hdr10_to_hdr}));
  EXPECT_FALSE(tonemaps_hdr10({}));
}

// ---- what this libavcodec's get_format offers ----

// FFmpeg 5.1 hevcdec.c / vp9.c get_format(): no AV_PIX_FMT_VAAPI for 4:4:4 or HEVC 12-bit.
TEST(IntelTruth, GetFormatTableByLibavcodecVersion) {
  unsigned lavc59 = AV_VERSION_INT(59, 37, 100);  // FFmpeg 5.1
  unsigned lavc61 = AV_VERSION_INT(61, 19, 100);  // FFmpeg 7.1
  EXPECT_EQ(vaapi_get_format_refusal(AV_CODEC_ID_HEVC, 8, 444, lavc59),
            "libavcodec 59's hevc decoder never offers VA-API for 4:4:4 8-bit (get_format)");
  EXPECT_NE(vaapi_get_format_refusal(AV_CODEC_ID_HEVC, 12, 420, lavc59), "");
  EXPECT_EQ(vaapi_get_format_refusal(AV_CODEC_ID_HEVC, 10, 422, lavc59), "");
  EXPECT_EQ(vaapi_get_format_refusal(AV_CODEC_ID_HEVC, 8, 444, lavc61), "");
  EXPECT_NE(vaapi_get_format_refusal(AV_CODEC_ID_VP9, 8, 444, lavc59), "");
  EXPECT_EQ(vaapi_get_format_refusal(AV_CODEC_ID_VP9, 8, 444, lavc61), "");
  EXPECT_EQ(vaapi_get_format_refusal(AV_CODEC_ID_VP9, 10, 420, lavc59), "");
  EXPECT_NE(vaapi_get_format_refusal(AV_CODEC_ID_AV1, 8, 444, lavc61), "");
}

TEST(IntelTruth, StreamsThisFfmpegCannotHandToVaapiDecodeInSoftwareWithThreads) {
  if (LIBAVCODEC_VERSION_MAJOR >= 61) GTEST_SKIP() << "this libavcodec offers VA-API for these";
  for (const MediaInfo& media : {source(AV_CODEC_ID_HEVC, 4, AV_PIX_FMT_YUV444P),
                                 source(AV_CODEC_ID_VP9, 1, AV_PIX_FMT_YUV444P),
                                 source(AV_CODEC_ID_HEVC, 4, AV_PIX_FMT_YUV420P12LE)}) {
    // Tiger Lake has every one of these VA profiles (README TGLx: HEVC 4:4:4, 12-bit, VP9 1/3).
    Result<Plan> plan = plan_on("tgl", media, output("o.mp4", 1280, 720));
    ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
    EXPECT_FALSE(plan->decode.hw) << plan->decode.note;
    EXPECT_TRUE(has(plan->decode.note, "never offers VA-API")) << plan->decode.note;
    EXPECT_EQ(plan->video_graph.uploads, 1);
    plan_for_cores(*plan, {1, 16}, true);
    EXPECT_EQ(plan->decode.threads, software_decoder_threads(16));
    EXPECT_GT(plan->decode.threads, 1);
    std::string command = ffmpeg_command(*plan, job({output("o.mp4", 1280, 720)}));
    EXPECT_FALSE(has(command, "-hwaccel ")) << command;
  }
}

// ---- AV1: the native decoder has no software path ----

struct ParametersDeleter {
  void operator()(AVCodecParameters* parameters) const { avcodec_parameters_free(&parameters); }
};

// Three 64x64 AV1 frames, encoded here (no media file): the packets and their parameters.
struct Av1Stream {
  av::CodecContextPtr encoder;
  std::vector<av::PacketPtr> packets;
};

Av1Stream encode_av1() {
  Av1Stream stream;
  const AVCodec* codec = avcodec_find_encoder_by_name("libaom-av1");
  if (!codec) return stream;
  stream.encoder.reset(avcodec_alloc_context3(codec));
  AVCodecContext* encoder = stream.encoder.get();
  encoder->width = 64;
  encoder->height = 64;
  encoder->pix_fmt = AV_PIX_FMT_YUV420P;
  encoder->time_base = {1, 25};
  av_opt_set(encoder->priv_data, "cpu-used", "8", 0);
  av_opt_set(encoder->priv_data, "usage", "realtime", 0);
  if (avcodec_open2(encoder, codec, nullptr) < 0) return stream;
  av::FramePtr frame(av_frame_alloc());
  frame->width = 64;
  frame->height = 64;
  frame->format = AV_PIX_FMT_YUV420P;
  av_frame_get_buffer(frame.get(), 0);
  for (int n = 0; n <= 3; ++n) {
    if (n < 3) {
      av_frame_make_writable(frame.get());
      for (int plane = 0; plane < 3; ++plane)
        memset(frame->data[plane], 40 * n + 16 * plane, frame->linesize[plane] * (plane ? 32 : 64));
      frame->pts = n;
    }
    avcodec_send_frame(encoder, n < 3 ? frame.get() : nullptr);
    for (av::PacketPtr packet(av_packet_alloc());
         avcodec_receive_packet(encoder, packet.get()) == 0; packet.reset(av_packet_alloc()))
      stream.packets.push_back(std::move(packet));
  }
  return stream;
}

// Frames a decoder gives for the packets, or the first error.
int decode_all(AVCodecContext* decoder, const std::vector<av::PacketPtr>& packets) {
  int frames = 0;
  av::FramePtr frame(av_frame_alloc());
  for (size_t i = 0; i <= packets.size(); ++i) {
    int err = avcodec_send_packet(decoder, i < packets.size() ? packets[i].get() : nullptr);
    if (err < 0) return err;
    while ((err = avcodec_receive_frame(decoder, frame.get())) == 0) ++frames;
    if (err != AVERROR(EAGAIN) && err != AVERROR_EOF) return err;
  }
  return frames;
}

// libavcodec/av1dec.c get_pixel_format(): without a hwaccel, "Your platform doesn't support
// hardware accelerated AV1 decoding" (AVERROR(ENOSYS)): the plan names libdav1d to reopen with.
TEST(IntelTruth, Av1HwDecodeNamesASoftwareDecoderThatTakesOver) {
  Result<Plan> plan =
      plan_on("tgl", source(AV_CODEC_ID_AV1, 0, AV_PIX_FMT_YUV420P), output("o.mp4", 1280, 720));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  if (!plan->decode.hw)
    GTEST_SKIP() << "no av1 decoder with a VA-API config: " << plan->decode.note;
  ASSERT_EQ(plan->decode.decoder, "av1");
  if (!avcodec_find_decoder_by_name("libdav1d")) GTEST_SKIP() << "this FFmpeg has no libdav1d";
  EXPECT_EQ(plan->decode.software_decoder, "libdav1d");
  EXPECT_TRUE(has(describe(*plan), "vaapi hwaccel, libdav1d in software if refused"))
      << describe(*plan);
  EXPECT_EQ(plan->fallback_video_graph.uploads, 1);

  Av1Stream stream = encode_av1();
  if (stream.packets.empty()) GTEST_SKIP() << "no libaom-av1 encoder to make a stream";
  std::unique_ptr<AVCodecParameters, ParametersDeleter> parameters(avcodec_parameters_alloc());
  avcodec_parameters_from_context(parameters.get(), stream.encoder.get());
  const AVCodec* av1 = avcodec_find_decoder_by_name("av1");
  av::CodecContextPtr native(avcodec_alloc_context3(av1));
  avcodec_parameters_to_context(native.get(), parameters.get());
  ASSERT_EQ(avcodec_open2(native.get(), av1, nullptr), 0);
  EXPECT_EQ(decode_all(native.get(), stream.packets), AVERROR(ENOSYS));  // no software path

  Result<av::CodecContextPtr> software =
      open_software_video_decoder(*parameters, AVRational{1, 25}, *plan);
  ASSERT_TRUE(software.is_ok()) << software.status().to_string();
  EXPECT_EQ(decode_all(software->get(), stream.packets), 3);
}

// ---- xe without HuC ----

TEST(IntelTruth, XeListsBitrateModesWithoutHucButTheyAreGated) {
  HwDevice device;
  device.driver = "xe";
  device.encode[AV_CODEC_ID_H264] = {
      .low_power = true, .low_power_rate_control = va_rc::kCqp | va_rc::kCbr | va_rc::kVbr};
  HwDevice loaded = device;
  gate_vdenc_bitrate_on_huc(true, loaded);
  EXPECT_EQ(loaded.encode[AV_CODEC_ID_H264].low_power_rate_control,
            va_rc::kCqp | va_rc::kCbr | va_rc::kVbr);
  gate_vdenc_bitrate_on_huc(false, device);
  EXPECT_EQ(device.encode[AV_CODEC_ID_H264].low_power_rate_control, va_rc::kCqp);
  // From Meteor Lake there is no EncSliceLP: the full entrypoint is VDEnc and is gated too.
  HwDevice mtl_like;
  mtl_like.encode[AV_CODEC_ID_HEVC] = {.full = true,
                                       .full_rate_control = va_rc::kCqp | va_rc::kCbr};
  gate_vdenc_bitrate_on_huc(false, mtl_like);
  EXPECT_EQ(mtl_like.encode[AV_CODEC_ID_HEVC].full_rate_control, va_rc::kCqp);

  OutputSpec cbr = output("o.mp4", 1280, 720);
  cbr.rate_control = RateControl::kCbr;
  cbr.bitrate = 4'000'000;
  Result<Plan> no_huc = plan_on("dg2:xe:no-huc", testing::media(), cbr);
  ASSERT_FALSE(no_huc.is_ok());
  EXPECT_TRUE(has(no_huc.status().message(), "offers only CQP, not CBR"))
      << no_huc.status().message();
  EXPECT_TRUE(plan_on("dg2:xe:huc", testing::media(), cbr).is_ok());
}

// ---- throughput: VDEnc where its bitrate control runs ----

// media-driver #580: full (PAK + shader) encode keeps the render engine busy; VDEnc is fixed
// function, and with HuC it has every mode.
TEST(IntelTruth, LowPowerIsPreferredWhereHucRunsIt) {
  for (const std::string profile : {"tgl", "tgl:huc", "icl:huc"}) {
    Result<Plan> plan = plan_on(profile, testing::media(), output("o.mp4", 1280, 720));
    ASSERT_TRUE(plan.is_ok()) << profile << ": " << plan.status().to_string();
    EXPECT_TRUE(plan->outputs[0].video.low_power) << profile;
    EXPECT_TRUE(has(describe(*plan), "h264_vaapi (low_power: VDEnc with HuC)"))
        << profile << ": " << describe(*plan);
  }
  for (const std::string profile : {"tgl:no-huc", "icl"}) {
    Result<Plan> plan = plan_on(profile, testing::media(), output("o.mp4", 1280, 720));
    ASSERT_TRUE(plan.is_ok()) << profile << ": " << plan.status().to_string();
    EXPECT_FALSE(plan->outputs[0].video.low_power) << profile;
  }
}

// An iGPU (Skylake, renderD128) beside an Arc (renderD129): `auto` takes the node that keeps
// more stages on the GPU, not the first.
TEST(IntelTruth, AutoTakesTheNodeThatKeepsMoreStagesOnTheGpu) {
  HwDevice igpu = assumed("skl");
  HwDevice arc = assumed("dg2");
  arc.path = "/dev/dri/renderD129";
  MediaInfo hevc10 = source(AV_CODEC_ID_HEVC, 2, AV_PIX_FMT_YUV420P10LE);
  Result<Plan> plan = make_plan(job({hevc_output()}), hevc10, inventory({igpu, arc}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_EQ(plan->device.path, "/dev/dri/renderD129") << plan->backend_reason;
  EXPECT_TRUE(plan->decode.hw) << plan->decode.note;
  EXPECT_EQ(plan->outputs[0].video.format.bit_depth, 10);
  // Where both keep every stage, the first node, as before.
  Result<Plan> h264 =
      make_plan(job({output("o.mp4", 1280, 720)}), testing::media(), inventory({igpu, arc}));
  ASSERT_TRUE(h264.is_ok());
  EXPECT_EQ(h264->device.path, "/dev/dri/renderD128");
  // A named device is kept.
  JobSpec pinned = job({hevc_output()});
  pinned.device = "/dev/dri/renderD128";
  Result<Plan> on_igpu = make_plan(pinned, hevc10, inventory({igpu, arc}));
  ASSERT_TRUE(on_igpu.is_ok());
  EXPECT_EQ(on_igpu->device.path, "/dev/dri/renderD128");
}

// ---- QSV on FFmpeg 5.1 ----

// qsvenc.c: AV1's QP is clipped to 0..255 (global_quality / FF_QP2LAMBDA), others to 0..51.
TEST(IntelTruth, Av1QsvQualityIsOnAv1QuantiserScale) {
  const HwEncoderDesc& qsv = backend_desc(BackendKind::kQsv).encoder;
  EXPECT_EQ(qsv.quality_for(VideoCodec::kAv1).value_for(24), 120 * 118);
  EXPECT_EQ(qsv.quality_for(VideoCodec::kHevc).value_for(24), 24 * 118);
  EXPECT_EQ(qsv.quality_for(VideoCodec::kH264).value_for(24), 24 * 118);
}

// vf_scale_qsv.c init_out_pool: 32 surfaces unset, 4 + extra_hw_frames when set.
TEST(IntelTruth, ScaleQsvPoolIsNeverBelowItsDefault) {
  if (!testing::qsv_built()) GTEST_SKIP() << "this FFmpeg has no h264_qsv";
  Result<Plan> plan =
      plan_on("tgl", testing::media(), output("o.mp4", 1280, 720), BackendKind::kQsv);
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_TRUE(has(plan->video_graph.text, "scale_qsv=w=1280:h=720:format=nv12:extra_hw_frames=28"))
      << plan->video_graph.text;
  EXPECT_EQ(testing::parse_graph(plan->video_graph.text).refusal, "") << plan->video_graph.text;
}

// ---- the printed ffmpeg command runs as planned ----

TEST(IntelTruth, PrintedQsvCommandNamesTheDecoderAndDerivesQsvFromTheNode) {
  if (!testing::qsv_built()) GTEST_SKIP() << "this FFmpeg has no h264_qsv";
  JobSpec spec = job({output("o.mp4", 1280, 720)}, BackendKind::kQsv);
  Result<Plan> plan =
      make_plan(spec, testing::media(AV_CODEC_ID_HEVC), inventory({qsv_device_on(assumed("tgl"))}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  std::string command = ffmpeg_command(*plan, spec);
  EXPECT_TRUE(has(command,
                  "-init_hw_device vaapi=va:/dev/dri/renderD128 -init_hw_device "
                  "'qsv=hw@va' -filter_hw_device hw"))
      << command;
  EXPECT_TRUE(has(command, "-c:v hevc_qsv -i in.mp4")) << command;
}

TEST(IntelTruth, PrintedVaapiCommandNamesTheNativeAv1Decoder) {
  Result<Plan> plan =
      plan_on("tgl", source(AV_CODEC_ID_AV1, 0, AV_PIX_FMT_YUV420P), output("o.mp4", 1280, 720));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  if (!plan->decode.hw)
    GTEST_SKIP() << "no av1 decoder with a VA-API config: " << plan->decode.note;
  std::string command = ffmpeg_command(*plan, job({output("o.mp4", 1280, 720)}));
  // Debian's default AV1 decoder is libdav1d, which has no VA-API path.
  EXPECT_TRUE(has(command, "-c:v av1 -i in.mp4")) << command;
  EXPECT_TRUE(has(command, "-init_hw_device vaapi=hw:/dev/dri/renderD128")) << command;
  EXPECT_EQ(testing::parse_graph(plan->video_graph.text).refusal, "") << plan->video_graph.text;
}

}  // namespace
}  // namespace tc
