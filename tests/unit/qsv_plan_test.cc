// QSV plans: the second Intel backend, on the same node and driver as VA-API. Planned from the
// backend table alone (issue 14): *_qsv decoders, scale_qsv, *_qsv encoders, no transfers.
#include <gtest/gtest.h>

extern "C" {
#include <libavcodec/avcodec.h>
}

#include "pipeline/hw/intel_profiles.h"
#include "pipeline/hw/intel_stack.h"
#include "pipeline/plan/plan.h"
#include "tests/unit/fixtures.h"

namespace tc {
namespace {

using testing::inventory;
using testing::job;
using testing::media;
using testing::output;
using testing::qsv_built;

HwDevice qsv_gpu() {
  return qsv_device_on(testing::intel_gpu());
}

std::string option(const VideoEncodePlan& plan, const std::string& key) {
  for (const auto& [name, value] : plan.options)
    if (name == key) return value;
  return "<unset>";
}

TEST(QsvPlan, LadderDecodesScalesAndEncodesInQsvSurfaces) {
  if (!qsv_built()) GTEST_SKIP() << "this FFmpeg has no h264_qsv";
  Result<Plan> plan =
      make_plan(job({output("a.mp4", 1280, 720), output("b.mp4", 640, 360)}, BackendKind::kQsv),
                media(), inventory({qsv_gpu()}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_EQ(plan->crossings(), 0) << plan->video_graph.text;
  EXPECT_TRUE(plan->decode.hw) << plan->decode.note;
  EXPECT_EQ(plan->decode.decoder, "h264_qsv");  // the codec's QSV decoder, not a hwaccel
  EXPECT_EQ(plan->hw_format, AV_PIX_FMT_QSV);
  EXPECT_NE(plan->video_graph.text.find("scale_qsv=w=640:h=360:format=nv12"), std::string::npos)
      << plan->video_graph.text;
  for (const OutputPlan& out : plan->outputs) {
    EXPECT_EQ(out.video.encoder, "h264_qsv");
    EXPECT_TRUE(out.video.hw_frames);
    EXPECT_EQ(out.video.device.backend, BackendKind::kQsv);
    EXPECT_EQ(out.video.device.path, "/dev/dri/renderD128");
    // Constant QP: the qscale flag with QP 24 in lambda units (x 118), as `-q:v 24` sets it.
    EXPECT_EQ(option(out.video, "flags"), "+qscale");
    EXPECT_EQ(option(out.video, "global_quality"), "2832");
    EXPECT_EQ(option(out.video, "low_power"), "0");  // the full entrypoint exists
    EXPECT_EQ(option(out.video, "preset"), "medium");
  }
}

// A QSV package, planned for the GPU `--assume-device tgl` names (on its node, as the CLI
// plans): a keyframe forced at a segment boundary is an IDR starting a closed GOP in every
// rendition, as it is with VA-API (idr_interval 0) and NVENC (forced-idr).
TEST(QsvPlan, APackagesEncodersMakeForcedKeyframesIdrs) {
  if (!qsv_built()) GTEST_SKIP() << "this FFmpeg has no h264_qsv";
  Result<HwDevice> tgl = assume_intel_device("tgl");
  ASSERT_TRUE(tgl.is_ok()) << tgl.status().to_string();
  JobSpec spec = job({output("720p", 1280, 720), output("360p", 640, 360, VideoCodec::kHevc)},
                     BackendKind::kQsv);
  spec.package.kind = PackageKind::kHls;
  spec.package.dir = "/out/show";
  spec.package.segment_s = 4;
  normalize(spec);
  Result<Plan> plan = make_plan(spec, media(), inventory({qsv_device_on(*tgl), *tgl}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_EQ(plan->outputs[0].video.encoder, "h264_qsv");
  EXPECT_EQ(plan->outputs[1].video.encoder, "hevc_qsv");
  for (const OutputPlan& out : plan->outputs) {
    EXPECT_EQ(option(out.video, "forced_idr"), "1") << out.video.encoder;
    EXPECT_EQ(out.video.gop, 120) << out.video.encoder;  // 4 s at 30 fps
  }
}

// QSV's runtime needs an upload's surfaces up front: hwupload gets a fixed pool.
TEST(QsvPlan, UploadPoolIsFixed) {
  if (!qsv_built()) GTEST_SKIP() << "this FFmpeg has no h264_qsv";
  HwDevice no_hevc = qsv_gpu();
  no_hevc.decode.erase(AV_CODEC_ID_HEVC);
  Result<Plan> plan = make_plan(job({output("a.mp4", 1280, 720)}, BackendKind::kQsv),
                                media(AV_CODEC_ID_HEVC), inventory({no_hevc}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_TRUE(plan->decode.upload);
  EXPECT_NE(plan->video_graph.text.find("hwupload=extra_hw_frames=3"), std::string::npos)
      << plan->video_graph.text;
}

TEST(QsvPlan, BitrateModesComeFromTheRatesNotAFlag) {
  if (!qsv_built()) GTEST_SKIP() << "this FFmpeg has no h264_qsv";
  OutputSpec cbr = output("a.mp4", 1280, 720);
  cbr.rate_control = RateControl::kCbr;
  cbr.bitrate = 3'000'000;
  OutputSpec vbr = output("b.mp4", 640, 360);
  vbr.rate_control = RateControl::kVbr;
  vbr.bitrate = 1'000'000;
  Result<Plan> plan =
      make_plan(job({cbr, vbr}, BackendKind::kQsv), media(), inventory({qsv_gpu()}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  const VideoEncodePlan& constant = plan->outputs[0].video;
  const VideoEncodePlan& variable = plan->outputs[1].video;
  EXPECT_EQ(option(constant, "flags"), "<unset>");  // qscale would make it constant QP
  EXPECT_EQ(constant.bit_rate, 3'000'000);
  EXPECT_EQ(constant.max_rate, constant.bit_rate);  // qsvenc.c: peak = rate is CBR
  EXPECT_GT(variable.max_rate, variable.bit_rate);  // and a higher peak is VBR
}

TEST(QsvPlan, BitrateWithoutHucIsRefusedNamingTheFirmware) {
  if (!qsv_built()) GTEST_SKIP() << "this FFmpeg has no h264_qsv";
  HwDevice device = qsv_gpu();
  // Low-power only, CQP only: a VDEnc encoder without HuC.
  device.encode[AV_CODEC_ID_H264] = {
      .full = false, .low_power = true, .low_power_rate_control = va_rc::kCqp};
  OutputSpec cbr = output("a.mp4", 1280, 720);
  cbr.rate_control = RateControl::kCbr;
  cbr.bitrate = 3'000'000;
  Result<Plan> plan = make_plan(job({cbr}, BackendKind::kQsv), media(), inventory({device}));
  ASSERT_FALSE(plan.is_ok());
  EXPECT_NE(plan.status().message().find("enable_guc=2"), std::string::npos)
      << plan.status().message();
}

TEST(QsvPlan, AutoKeepsVaapiWhenQsvIsAlsoThere) {
  Result<Plan> plan = make_plan(job({output("a.mp4", 1280, 720)}), media(),
                                inventory({qsv_gpu(), testing::intel_gpu()}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_EQ(plan->backend, BackendKind::kVaapi) << plan->backend_reason;
}

TEST(QsvPlan, NoQsvDeviceIsADeviceErrorNamingTheRuntime) {
  HwInventory devices = inventory({testing::intel_gpu()});
  // As discover_qsv writes it where the node's PCI id did not tell its generation.
  devices.notes.push_back(
      "qsv /dev/dri/renderD128: opening qsv device: Function not implemented (" +
      intel_qsv_open_hint("", "") + ")");
  Result<Plan> plan =
      make_plan(job({output("a.mp4", 1280, 720)}, BackendKind::kQsv), media(), devices);
  ASSERT_FALSE(plan.is_ok());
  EXPECT_EQ(plan.status().code(), Code::kDevice);
  EXPECT_NE(plan.status().message().find("--backend qsv"), std::string::npos);
  EXPECT_NE(plan.status().message().find("libmfx"), std::string::npos);
  EXPECT_NE(plan.status().message().find("this GPU: generation not known"), std::string::npos)
      << plan.status().message();
}

}  // namespace
}  // namespace tc
