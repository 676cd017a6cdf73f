// A plan's stages rendered from its typed facts (plan/stages.h): each fact set gives the text
// that --dry-run, the JSON report and the daemon's stored jobs show, byte for byte.
#include "pipeline/plan/stages.h"

#include <gtest/gtest.h>

#include <string>

namespace tc {
namespace {

const StageDevice kGpu{BackendKind::kVaapi, "/dev/dri/renderD128", "i915"};

// The stages one a line, as describe() prints them.
std::string text_of(const Plan& plan) {
  std::string text;
  for (const Stage& stage : render_stages(plan))
    text += stage.name + ": " + stage.component + " [" + stage.device.to_string() + "]\n";
  return text;
}

OutputPlan encoded(const std::string& path, const std::string& encoder, int width) {
  OutputPlan output;
  output.path = path;
  output.format = "mp4";
  output.width = width;
  output.video.encoder = encoder;
  return output;
}

// A software plan: one scaler, one libx264 output, nothing fitted to the machine yet.
Plan software_plan() {
  Plan plan;
  plan.source_format = "mov,mp4,m4a,3gp,3g2,mj2";
  plan.source_codec = "h264";
  plan.decode.needed = true;
  plan.video_graph.scalers = 1;
  plan.outputs.push_back(encoded("a.mp4", "libx264", 1280));
  return plan;
}

// The same on a VA-API device: decoded in software until a test says otherwise.
Plan vaapi_plan() {
  Plan plan = software_plan();
  plan.backend = BackendKind::kVaapi;
  plan.device = kGpu;
  return plan;
}

TEST(RenderStages, APlanAsMadeSaysNoThreads) {
  EXPECT_EQ(text_of(software_plan()),
            "demux: mov,mp4,m4a,3gp,3g2,mj2 [cpu]\n"
            "decode: h264 (software) [cpu]\n"
            "filter: scale x1 [cpu]\n"
            "encode out0: libx264 [cpu]\n"
            "mux out0: mp4 [cpu]\n");
}

// What plan_for_cores, plan_gop_parallel and keep_x264_off_avx512 decide, each a note in the
// order they are decided.
TEST(RenderStages, EveryFactFittedToTheMachineIsANote) {
  Plan plan = software_plan();
  plan.decode.threads = 4;
  plan.video_graph.threads = 4;
  plan.video_graph.scalers = 0;
  VideoEncodePlan& cut = plan.outputs[0].video;
  cut.parallel_encoders = 2;
  cut.chunk_frames = 240;
  cut.encoder_threads = 3;
  cut.without_avx512 = true;
  plan.outputs.push_back(encoded("b.mp4", "libx264", 640));
  VideoEncodePlan& whole = plan.outputs[1].video;
  whole.one_encoder_why = "a bitrate's rate control (and its VBV buffer) spans the whole stream";
  whole.encoder_threads = 1;
  EXPECT_EQ(text_of(plan),
            "demux: mov,mp4,m4a,3gp,3g2,mj2 [cpu]\n"
            "decode: h264 (software, 4 threads) [cpu]\n"
            "filter: format conversion only (4 threads) [cpu]\n"
            "encode out0: libx264 (GOP-parallel: 2 encoders, chunks of 240 frames, 3 threads "
            "each: its share of the cores, without AVX-512: its mbtree misreads rows 1280 "
            "wide) [cpu]\n"
            "mux out0: mp4 [cpu]\n"
            "encode out1: libx264 (one encoder: a bitrate's rate control (and its VBV buffer) "
            "spans the whole stream, 1 thread: its share of the cores) [cpu]\n"
            "mux out1: mp4 [cpu]\n");
}

// A device's decoder and scalers say no threads (they have no slices); the encoder's own note
// comes first; an output encoded in software downloads its frames.
TEST(RenderStages, ADevicePlanSaysItsNotesNotThreads) {
  Plan plan = vaapi_plan();
  plan.decode = {.needed = true, .hw = true, .threads = 1, .device = kGpu, .note = "vaapi hwaccel"};
  plan.video_graph.threads = 4;
  plan.video_graph.sinks = {{.label = "out0", .output = 0},
                            {.label = "out1", .output = 1, .download_at_output = "hwdownload"}};
  VideoEncodePlan& hw = plan.outputs[0].video;
  hw = {.encoder = "h264_vaapi", .device = kGpu, .note = "low_power: VDEnc with HuC"};
  hw.one_encoder_why = "h264_vaapi runs on the device";
  plan.outputs.push_back(encoded("b.webm", "libvpx-vp9", 640));
  plan.outputs[1].format = "webm";
  plan.outputs[1].video.download = true;
  plan.outputs[1].video.note = "vaapi has no vp9 encoder here";
  EXPECT_EQ(text_of(plan),
            "demux: mov,mp4,m4a,3gp,3g2,mj2 [cpu]\n"
            "decode: h264 (vaapi hwaccel) [vaapi /dev/dri/renderD128 (i915)]\n"
            "filter: scale_vaapi x1 [vaapi /dev/dri/renderD128 (i915)]\n"
            "encode out0: h264_vaapi (low_power: VDEnc with HuC, one encoder: h264_vaapi runs on "
            "the device) [vaapi /dev/dri/renderD128 (i915)]\n"
            "mux out0: mp4 [cpu]\n"
            "download out1: av_hwframe_transfer_data, on the output's thread [vaapi "
            "/dev/dri/renderD128 (i915)]\n"
            "encode out1: libvpx-vp9 (vaapi has no vp9 encoder here) [cpu]\n"
            "mux out1: webm [cpu]\n");
}

// bwdif and a turn in memory come before the upload, the device's after it.
TEST(RenderStages, FiltersInMemoryComeBeforeTheUploadTheDevicesAfterIt) {
  Plan plan = vaapi_plan();
  plan.decode.upload = true;
  plan.deinterlace = {
      true, "bwdif=mode=send_frame:parity=auto:deint=all", "bwdif", {}, "source tt"};
  plan.orientation = {1,    "transpose_vaapi=dir=clock", "transpose_vaapi", true,
                      kGpu, "display matrix: 90"};
  EXPECT_EQ(text_of(plan),
            "demux: mov,mp4,m4a,3gp,3g2,mj2 [cpu]\n"
            "decode: h264 (software) [cpu]\n"
            "deinterlace: bwdif (source tt) [cpu]\n"
            "upload: hwupload [vaapi /dev/dri/renderD128 (i915)]\n"
            "turn upright: transpose_vaapi (display matrix: 90) [vaapi /dev/dri/renderD128 "
            "(i915)]\n"
            "filter: scale_vaapi x1 [vaapi /dev/dri/renderD128 (i915)]\n"
            "encode out0: libx264 [cpu]\n"
            "mux out0: mp4 [cpu]\n");
}

// A package's renditions mux segments; a copied output decodes nothing; thumbnails and quality
// measures follow the outputs.
TEST(RenderStages, PackagesCopiesThumbnailsAndMeasures) {
  Plan plan;
  plan.source_format = "mpegts";
  plan.source_codec = "hevc";
  plan.outputs.push_back(encoded("720p", "", 1280));
  plan.outputs[0].video_copy = true;
  plan.package = {.kind = PackageKind::kHls, .segment_format = SegmentFormat::kTs};
  EXPECT_EQ(text_of(plan),
            "demux: mpegts [cpu]\n"
            "encode out0: copy (hevc) [cpu]\n"
            "mux out0: mpeg-ts segments of 720p [cpu]\n");
  plan = software_plan();
  plan.package = {.kind = PackageKind::kDash};
  plan.thumbnails = {.on = true, .width = 160, .height = 90, .columns = 5, .rows = 4};
  plan.quality_metrics.psnr = true;
  EXPECT_EQ(text_of(plan),
            "demux: mov,mp4,m4a,3gp,3g2,mj2 [cpu]\n"
            "decode: h264 (software) [cpu]\n"
            "filter: scale x1 [cpu]\n"
            "encode out0: libx264 [cpu]\n"
            "mux out0: fmp4 segments (cmaf) of a.mp4 [cpu]\n"
            "encode thumbnails: mjpeg sheets of 5x4 tiles of 160x90 [cpu]\n"
            "measure out0: psnr of out0 (decoded again) against the source scaled bicubic on the "
            "cpu [cpu]\n");
}

}  // namespace
}  // namespace tc
