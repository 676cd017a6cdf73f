#include "pipeline/plan/plan.h"

#include <gtest/gtest.h>

#include <algorithm>

extern "C" {
#include <libavcodec/avcodec.h>
}

#include "pipeline/hw/backends.h"
#include "pipeline/plan/graph_builder.h"
#include "tests/unit/fixtures.h"

namespace tc {
namespace {

using testing::intel_gpu;
using testing::inventory;
using testing::job;
using testing::lavapipe;
using testing::media;
using testing::output;
using testing::output_downloads;
using testing::stage;

constexpr auto count = testing::occurrences;

std::string option(const VideoEncodePlan& plan, const std::string& key) {
  for (const auto& [name, value] : plan.options)
    if (name == key) return value;
  return "<unset>";
}

std::vector<OutputSpec> ladder(VideoCodec codec = VideoCodec::kH264) {
  return {output("a.mp4", 0, 0, codec), output("b.mp4", 1280, 720, codec),
          output("c.mp4", 640, 360, codec)};
}

TEST(SoftwarePlan, SingleOutputScalesOnCpu) {
  Result<Plan> plan = make_plan(job({output("out.mp4", 1280, 0)}), media(), inventory({}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_EQ(plan->backend, BackendKind::kSoftware);
  EXPECT_EQ(plan->video_graph.text, "[in]scale=1280:720,format=yuv420p[out0]");
  EXPECT_EQ(plan->outputs[0].video.encoder, "libx264");
  EXPECT_EQ(option(plan->outputs[0].video, "preset"), "veryfast");
  EXPECT_EQ(plan->outputs[0].format, "mp4");
  EXPECT_EQ(plan->outputs[0].mux_options, (Options{{"movflags", "+faststart"}}));
  EXPECT_EQ(plan->outputs[0].video.gop, 60);  // two seconds at 30 fps
  EXPECT_EQ(plan->crossings(), 0);
  EXPECT_FALSE(plan->decode.hw);
}

TEST(SoftwarePlan, LadderDecodesOnceAndScalesCascaded) {
  Result<Plan> plan = make_plan(job(ladder()), media(), inventory({}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  // 720p scales from 1080p, 360p from 720p: each scaler works on the smallest frame that holds it.
  EXPECT_EQ(plan->video_graph.text,
            "[in]split=2[v0][v1];[v0]format=yuv420p[out0];[v1]scale=1280:720,split=2[v2][v3];"
            "[v2]format=yuv420p[out1];[v3]scale=640:360,format=yuv420p[out2]");
  EXPECT_TRUE(plan->decode.needed);
  EXPECT_EQ(plan->outputs.size(), 3u);
}

TEST(SoftwarePlan, OneSideZeroKeepsAspectWithEvenSides) {
  Result<Plan> plan = make_plan(job({output("a.mp4", 0, 480), output("b.mp4", 854, 0)}),
                                media(AV_CODEC_ID_H264, 1920, 1080), inventory({}));
  ASSERT_TRUE(plan.is_ok());
  EXPECT_EQ(plan->outputs[0].width, 854);
  EXPECT_EQ(plan->outputs[0].height, 480);
  EXPECT_EQ(plan->outputs[1].width, 854);
  EXPECT_EQ(plan->outputs[1].height, 480);
}

TEST(SoftwarePlan, AKeptSideBeyondTheSideCapIsRefusedNamingIt) {
  // 16x4096 (a legal source) to width 1024: the aspect ratio asks for a 262144-pixel height.
  Result<Plan> plan = make_plan(job({output("tall.mp4", 1024, 0)}),
                                media(AV_CODEC_ID_H264, 16, 4096), inventory({}));
  ASSERT_FALSE(plan.is_ok());
  EXPECT_EQ(plan.status().code(), Code::kInvalidArgument);
  EXPECT_NE(plan.status().message().find("1024x262144"), std::string::npos)
      << plan.status().message();
  EXPECT_NE(plan.status().message().find("16384"), std::string::npos);
}

TEST(SoftwarePlan, CopyNeedsNoDecode) {
  Result<Plan> plan =
      make_plan(job({output("a.mkv", 0, 0, VideoCodec::kCopy)}), media(), inventory({}));
  ASSERT_TRUE(plan.is_ok());
  EXPECT_FALSE(plan->decode.needed);
  EXPECT_TRUE(plan->video_graph.empty());
  EXPECT_TRUE(plan->outputs[0].video_copy);
}

TEST(SoftwarePlan, AudioAutoCopiesWhatTheContainerTakesElseAac) {
  MediaInfo pcm = media();
  pcm.audio[0].codec = AV_CODEC_ID_PCM_S16LE;
  pcm.audio[0].codec_name = "pcm_s16le";
  Result<Plan> aac_source = make_plan(job({output("a.mp4")}), media(), inventory({}));
  ASSERT_TRUE(aac_source.is_ok());
  EXPECT_EQ(aac_source->outputs[0].audio[0].mode, AudioPlan::Mode::kCopy);
  Result<Plan> pcm_source =
      make_plan(job({output("a.mp4"), output("b.mp4", 640, 360)}), pcm, inventory({}));
  ASSERT_TRUE(pcm_source.is_ok());
  EXPECT_EQ(pcm_source->outputs[0].audio[0].mode, AudioPlan::Mode::kEncode);
  EXPECT_EQ(pcm_source->outputs[0].audio[0].encoder, "aac");
  EXPECT_EQ(pcm_source->audio_graphs[0].graph.text,
            "[ain]aformat=sample_fmts=fltp,asplit=2[a0][a1];"
            "[a0]aformat=sample_fmts=fltp:sample_rates=48000:channel_layouts=stereo[a1out0];"
            "[a1]aformat=sample_fmts=fltp:sample_rates=48000:channel_layouts=stereo[a1out1]");
  OutputSpec forced_copy = output("a.mp4");
  forced_copy.audio = AudioMode::kCopy;
  Result<Plan> refused = make_plan(job({forced_copy}), pcm, inventory({}));
  EXPECT_EQ(refused.status().code(), Code::kUnsupported);
}

// The executor wires sinks to outputs from the plan: a copied output has no video sink, and
// only outputs that encode audio have an audio sink.
TEST(SoftwarePlan, SinksNameTheOutputsTheyFeed) {
  MediaInfo pcm = media();
  pcm.audio[0].codec = AV_CODEC_ID_PCM_S16LE;
  pcm.audio[0].codec_name = "pcm_s16le";
  std::vector<OutputSpec> outputs = {output("a.mp4", 1280, 720),
                                     output("b.mkv", 0, 0, VideoCodec::kCopy),
                                     output("c.mp4", 640, 360)};
  outputs[2].audio = AudioMode::kNone;
  Result<Plan> plan = make_plan(job(outputs), pcm, inventory({}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  ASSERT_EQ(plan->video_graph.sinks.size(), 2u);
  EXPECT_EQ(plan->video_graph.sinks[0].output, 0u);
  EXPECT_EQ(plan->video_graph.sinks[1].output, 2u);
  EXPECT_EQ(plan->video_graph.sink_label(1), "");
  EXPECT_NE(plan->video_graph.text.find("[" + plan->video_graph.sinks[1].label + "]"),
            std::string::npos);
  // mp4 takes no PCM: output 0 encodes AAC; mkv copies PCM; output 2 has no audio.
  ASSERT_EQ(plan->audio_graphs[0].graph.sinks.size(), 1u);
  EXPECT_EQ(plan->audio_graphs[0].graph.sinks[0].output, 0u);
  EXPECT_EQ(plan->outputs[1].audio[0].mode, AudioPlan::Mode::kCopy);
  EXPECT_EQ(plan->outputs[1].video.device.backend, BackendKind::kSoftware);  // a copy: cpu
  EXPECT_EQ(plan->video_graph.scalers, 2);
  EXPECT_EQ(plan->crossings(), 0);
  // Stages come in pipeline order: demux, decode, filter, then each output's encode and mux.
  std::vector<std::string> names;
  for (const Stage& stage : render_stages(*plan)) names.push_back(stage.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"demux", "decode", "filter", "encode out0", "mux out0",
                                      "encode out1", "mux out1", "encode out2", "mux out2"}));
}

TEST(VaapiPlan, AutoPicksAUsableIntelGpuAndSaysWhy) {
  Result<Plan> plan =
      make_plan(job({output("a.mp4", 1280, 720)}), media(), inventory({intel_gpu()}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_EQ(plan->backend, BackendKind::kVaapi);
  EXPECT_NE(plan->backend_reason.find("/dev/dri/renderD128"), std::string::npos);
  EXPECT_EQ(plan->device.path, "/dev/dri/renderD128");
}

TEST(VaapiPlan, AutoFallsBackToSoftwareAndSaysWhy) {
  HwInventory none;
  none.notes.push_back("/dev/dri: no such directory");
  Result<Plan> plan = make_plan(job({output("a.mp4")}), media(), none);
  ASSERT_TRUE(plan.is_ok());
  EXPECT_EQ(plan->backend, BackendKind::kSoftware);
  EXPECT_NE(plan->backend_reason.find("/dev/dri: no such directory"), std::string::npos);
}

TEST(VaapiPlan, PureLadderStaysOnTheGpu) {
  Result<Plan> plan =
      make_plan(job(ladder(), BackendKind::kVaapi), media(), inventory({intel_gpu()}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_EQ(plan->crossings(), 0) << plan->video_graph.text;
  EXPECT_EQ(plan->video_graph.uploads, 0);
  EXPECT_EQ(plan->video_graph.downloads, 0);
  EXPECT_EQ(plan->video_graph.scalers, 3);  // every branch scales from the decoded surface
  EXPECT_EQ(count(plan->video_graph.text, "split=3"), 1) << plan->video_graph.text;
  EXPECT_NE(plan->video_graph.text.find("scale_vaapi=w=640:h=360:format=nv12"), std::string::npos);
  EXPECT_TRUE(plan->decode.hw);
  EXPECT_FALSE(plan->decode.upload);
  EXPECT_EQ(plan->decode.device.path, "/dev/dri/renderD128");
  EXPECT_EQ(plan->decode.threads, 1);
  EXPECT_EQ(plan->hw_format, AV_PIX_FMT_VAAPI);
  for (const OutputPlan& output : plan->outputs) {
    EXPECT_EQ(output.video.encoder, "h264_vaapi");
    EXPECT_TRUE(output.video.hw_frames);
    EXPECT_FALSE(output.video.download);
    EXPECT_EQ(output.video.device.backend, BackendKind::kVaapi);
    EXPECT_EQ(output.video.device.path, "/dev/dri/renderD128");
    EXPECT_EQ(option(output.video, "low_power"), "0");  // the full entrypoint exists
    EXPECT_EQ(option(output.video, "rc_mode"), "CQP");
  }
  for (const Stage& stage : render_stages(*plan)) {
    bool on_cpu = stage.name == "demux" || stage.name.rfind("mux", 0) == 0;
    EXPECT_EQ(stage.device.backend, on_cpu ? BackendKind::kSoftware : BackendKind::kVaapi)
        << stage.name;
  }
}

TEST(VaapiPlan, PoolsAreSizedForEveryBranch) {
  Result<Plan> plan =
      make_plan(job(ladder(), BackendKind::kVaapi), media(), inventory({intel_gpu()}));
  ASSERT_TRUE(plan.is_ok());
  // The decoder's pool covers a surface per branch in the graph, the graph's queue, and the
  // frames queued for the graph's thread.
  bool fixed = backend_desc(BackendKind::kVaapi).fixed_pools;
  EXPECT_EQ(plan->decode.extra_hw_frames, 3 + 2 + (fixed ? kDecodeQueueFrames : 0));
  if (!backend_desc(BackendKind::kVaapi).fixed_pools) {
    // FFmpeg 7.1: scale_vaapi's pool grows on demand; an extra_hw_frames would be ignored.
    EXPECT_EQ(count(plan->video_graph.text, "extra_hw_frames"), 0) << plan->video_graph.text;
    return;
  }
  // FFmpeg 5.1: each scaler's pool is fixed and covers what its encoder holds (async_depth 2 +
  // 2 B-frames + 1) and the frames queued for the output's thread.
  std::string held = ":extra_hw_frames=" + std::to_string(5 + kBranchQueueFrames);
  EXPECT_EQ(count(plan->video_graph.text, held), 3) << plan->video_graph.text;
  OutputSpec no_b = output("d.mp4", 320, 180);
  no_b.b_frames = 0;
  Result<Plan> fewer =
      make_plan(job({no_b}, BackendKind::kVaapi), media(), inventory({intel_gpu()}));
  ASSERT_TRUE(fewer.is_ok());
  EXPECT_NE(
      fewer->video_graph.text.find(":extra_hw_frames=" + std::to_string(3 + kBranchQueueFrames)),
      std::string::npos)
      << fewer->video_graph.text;
}

// hwupload's VA-API pool grows on demand; an extra_hw_frames there would fix its size.
TEST(VaapiPlan, UploadPoolIsLeftToGrow) {
  HwDevice no_hevc = intel_gpu();
  no_hevc.decode.erase(AV_CODEC_ID_HEVC);
  Result<Plan> plan =
      make_plan(job(ladder(), BackendKind::kVaapi), media(AV_CODEC_ID_HEVC), inventory({no_hevc}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_TRUE(plan->decode.upload);
  EXPECT_NE(plan->video_graph.text.find("hwupload"), std::string::npos);
  EXPECT_EQ(plan->video_graph.text.find("hwupload=extra_hw_frames"), std::string::npos)
      << plan->video_graph.text;
}

TEST(VaapiPlan, LowPowerWhenOnlyVdencExists) {
  HwDevice arc = intel_gpu();
  arc.driver = "xe";
  arc.encode = {{AV_CODEC_ID_H264, {false, true}}};
  Result<Plan> plan =
      make_plan(job({output("a.mp4")}, BackendKind::kVaapi), media(), inventory({arc}));
  ASSERT_TRUE(plan.is_ok());
  EXPECT_EQ(option(plan->outputs[0].video, "low_power"), "1");
  EXPECT_NE(stage(*plan, "encode out0")->component.find("low_power"), std::string::npos);
}

TEST(VaapiPlan, SoftwareDecodeAndUploadWhenTheGpuCannotDecode) {
  HwDevice gpu = intel_gpu();
  gpu.decode.erase(AV_CODEC_ID_HEVC);
  Result<Plan> plan = make_plan(job({output("a.mp4", 1280, 720)}, BackendKind::kVaapi),
                                media(AV_CODEC_ID_HEVC), inventory({gpu}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_FALSE(plan->decode.hw);
  EXPECT_TRUE(plan->decode.upload);
  EXPECT_EQ(plan->video_graph.uploads, 1);
  EXPECT_EQ(plan->video_graph.downloads, 0);
  EXPECT_EQ(plan->crossings(), 1);
  EXPECT_EQ(plan->video_graph.text.rfind("[in]format=nv12,hwupload", 0), 0u)
      << plan->video_graph.text;
  ASSERT_NE(stage(*plan, "upload"), nullptr);
  EXPECT_EQ(stage(*plan, "decode")->device.backend, BackendKind::kSoftware);
  EXPECT_NE(stage(*plan, "decode")->component.find("cannot decode hevc"), std::string::npos);
  EXPECT_EQ(plan->outputs[0].video.encoder, "h264_vaapi");
}

TEST(VaapiPlan, TenBitNeedsTenBitDecode) {
  HwDevice gpu = intel_gpu();
  gpu.decode[AV_CODEC_ID_HEVC] = 8;
  Result<Plan> plan = make_plan(job({output("a.mp4")}, BackendKind::kVaapi),
                                media(AV_CODEC_ID_HEVC, 1920, 1080, 10), inventory({gpu}));
  ASSERT_TRUE(plan.is_ok());
  EXPECT_FALSE(plan->decode.hw);
}

// Plans that fall back to a software encoder need that encoder in this FFmpeg build.
#define SKIP_WITHOUT_ENCODER(name) \
  if (!avcodec_find_encoder_by_name(name)) GTEST_SKIP() << name << " is not in this FFmpeg build"

TEST(VaapiPlan, DownloadOnlyTheBranchTheGpuCannotEncode) {
  SKIP_WITHOUT_ENCODER("libvpx-vp9");
  std::vector<OutputSpec> outputs = {output("a.mp4", 1280, 720),
                                     output("b.mkv", 640, 360, VideoCodec::kVp9)};
  Result<Plan> plan =
      make_plan(job(outputs, BackendKind::kVaapi), media(), inventory({intel_gpu()}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_TRUE(plan->decode.hw);
  EXPECT_EQ(plan->outputs[0].video.encoder, "h264_vaapi");
  EXPECT_EQ(plan->outputs[1].video.encoder, "libvpx-vp9");
  EXPECT_FALSE(plan->outputs[1].video.hw_frames);
  EXPECT_FALSE(plan->outputs[0].video.download);
  EXPECT_TRUE(plan->outputs[1].video.download);
  EXPECT_EQ(plan->outputs[0].video.device.backend, BackendKind::kVaapi);
  EXPECT_EQ(plan->outputs[1].video.device.backend, BackendKind::kSoftware);
  EXPECT_EQ(plan->video_graph.uploads, 0);
  EXPECT_EQ(plan->video_graph.downloads, 1);
  EXPECT_EQ(plan->crossings(), 1);
  EXPECT_NE(
      plan->video_graph.text.find("scale_vaapi=w=640:h=360:format=nv12,hwdownload,format=nv12"),
      std::string::npos)
      << plan->video_graph.text;
  EXPECT_NE(stage(*plan, "download out1"), nullptr);
  EXPECT_EQ(stage(*plan, "download out0"), nullptr);
  EXPECT_EQ(stage(*plan, "encode out1")->device.backend, BackendKind::kSoftware);
}

TEST(VaapiPlan, Av1EncodeNeedsAnEncoderInThisFfmpeg) {
  SKIP_WITHOUT_ENCODER("libsvtav1");
  HwDevice arc = intel_gpu();
  arc.encode[AV_CODEC_ID_AV1] = {false, true};
  Result<Plan> plan = make_plan(job({output("a.mkv", 0, 0, VideoCodec::kAv1)}, BackendKind::kVaapi),
                                media(), inventory({arc}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  bool has_av1_vaapi = avcodec_find_encoder_by_name("av1_vaapi") != nullptr;
  EXPECT_EQ(plan->outputs[0].video.encoder, has_av1_vaapi ? "av1_vaapi" : "libsvtav1");
  EXPECT_EQ(plan->crossings(), has_av1_vaapi ? 0 : 1);
}

TEST(VaapiPlan, RequestedWithoutIntelGpuIsADeviceErrorThatMentionsAuto) {
  HwDevice amd;
  amd.backend = BackendKind::kVaapi;
  amd.path = "/dev/dri/renderD128";
  amd.driver = "amdgpu";
  amd.unusable_reason = "kernel driver amdgpu is not an Intel GPU driver (i915/xe)";
  Result<Plan> plan =
      make_plan(job({output("a.mp4")}, BackendKind::kVaapi), media(), inventory({amd}));
  ASSERT_FALSE(plan.is_ok());
  EXPECT_EQ(plan.status().code(), Code::kDevice);
  EXPECT_NE(plan.status().message().find("amdgpu"), std::string::npos) << plan.status().message();
  EXPECT_NE(plan.status().message().find("--backend auto would fall back"), std::string::npos);
}

TEST(VaapiPlan, DevicePathPicksAmongSeveralGpus) {
  Result<Plan> plan = make_plan(
      [] {
        JobSpec spec = job({output("a.mp4")}, BackendKind::kVaapi);
        spec.device = "/dev/dri/renderD129";
        return spec;
      }(),
      media(), inventory({intel_gpu("/dev/dri/renderD128"), intel_gpu("/dev/dri/renderD129")}));
  ASSERT_TRUE(plan.is_ok());
  EXPECT_EQ(plan->device.path, "/dev/dri/renderD129");
}

TEST(VaapiPlan, RateControlModes) {
  OutputSpec cbr = output("a.mp4");
  cbr.rate_control = RateControl::kCbr;
  cbr.bitrate = 3'000'000;
  Result<Plan> plan = make_plan(job({cbr}, BackendKind::kVaapi), media(), inventory({intel_gpu()}));
  ASSERT_TRUE(plan.is_ok());
  EXPECT_EQ(option(plan->outputs[0].video, "rc_mode"), "CBR");
  EXPECT_EQ(plan->outputs[0].video.bit_rate, 3'000'000);
  EXPECT_EQ(plan->outputs[0].video.max_rate, 3'000'000);
}

TEST(VaapiPlan, FfmpegCommandUsesTheHwaccelAndTheSameGraph) {
  Result<Plan> plan =
      make_plan(job(ladder(), BackendKind::kVaapi), media(), inventory({intel_gpu()}));
  ASSERT_TRUE(plan.is_ok());
  std::string command = ffmpeg_command(*plan, job(ladder(), BackendKind::kVaapi));
  EXPECT_NE(command.find("-init_hw_device vaapi=hw:/dev/dri/renderD128"), std::string::npos)
      << command;
  EXPECT_NE(command.find("-hwaccel vaapi"), std::string::npos);
  EXPECT_NE(command.find("-hwaccel_output_format vaapi"), std::string::npos);
  EXPECT_NE(command.find("-extra_hw_frames " + std::to_string(plan->decode.extra_hw_frames)),
            std::string::npos);
  EXPECT_NE(command.find("[0:v:0]split=3"), std::string::npos);
  EXPECT_EQ(count(command, "-c:v h264_vaapi"), 3);
  // The same graph: the plan's, whole, reading the input's first video stream.
  std::string graph = plan->video_graph.text;
  ASSERT_EQ(graph.rfind("[in]", 0), 0u) << graph;
  EXPECT_NE(command.find("-filter_complex '[0:v:0]" + graph.substr(4) + "'"), std::string::npos)
      << command << "\n"
      << graph;
}

TEST(VulkanPlan, UploadsScalesAndDownloads) {
  Result<Plan> plan =
      make_plan(job(ladder(), BackendKind::kVulkan), media(), inventory({lavapipe()}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_FALSE(plan->decode.hw);
  EXPECT_EQ(count(plan->video_graph.text, "hwupload"), 1) << plan->video_graph.text;
  // 360p from 1080p is 3:1: scale_vulkan (bilinear) cascades it in two steps.
  EXPECT_EQ(count(plan->video_graph.text, "scale_vulkan"), 4);
  // Every output downloads its frames itself, for libx264: the 1080p one, at the source's size,
  // holds hwupload's frames, from a pool that grows.
  EXPECT_EQ(count(plan->video_graph.text, "hwdownload"), 0) << plan->video_graph.text;
  EXPECT_EQ(output_downloads(plan->video_graph, "hwdownload,format=yuv420p"), 3);
  EXPECT_EQ(plan->crossings(), 4);
  EXPECT_EQ(plan->outputs[0].video.encoder, "libx264");
  EXPECT_EQ(stage(*plan, "filter")->device.backend, BackendKind::kVulkan);
}

TEST(VulkanPlan, WithoutADeviceIsADeviceError) {
  Result<Plan> plan =
      make_plan(job({output("a.mp4")}, BackendKind::kVulkan), media(), inventory({}));
  EXPECT_EQ(plan.status().code(), Code::kDevice);
}

HwDevice h200(bool nvenc) {
  HwDevice device;
  device.backend = BackendKind::kCuda;
  device.path = "0";
  device.driver = "nvidia";
  device.decode = {{AV_CODEC_ID_H264, 8}, {AV_CODEC_ID_HEVC, 10}};
  if (nvenc) device.encode = {{AV_CODEC_ID_H264, {true, false}}};
  device.can_scale = true;
  return device;
}

TEST(CudaPlan, NoNvencMeansDownloadAndSoftwareEncode) {
  Result<Plan> plan =
      make_plan(job(ladder(), BackendKind::kCuda), media(), inventory({h200(false)}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  bool nvdec = plan->decode.hw;  // needs this libavcodec to have the nvdec hwaccel
  // 360p from 1080p is 3:1: scale_cuda cascades it in two steps.
  EXPECT_EQ(count(plan->video_graph.text, "scale_cuda=w="), 4) << plan->video_graph.text;
  // Each output's frames leave the graph on the GPU, and it downloads them on its thread. At the
  // source's size scale_cuda would pass the decoder's frames through, of which NVDEC has a fixed
  // few: it is told to give frames of its own.
  EXPECT_EQ(count(plan->video_graph.text, "scale_cuda=w=1920:h=1080:format=nv12:passthrough=0"), 1)
      << plan->video_graph.text;
  EXPECT_EQ(count(plan->video_graph.text, "passthrough"), 1);
  EXPECT_EQ(count(plan->video_graph.text, "hwdownload"), 0);
  EXPECT_EQ(output_downloads(plan->video_graph, "hwdownload,format=nv12"), 3);
  EXPECT_EQ(plan->video_graph.downloads, 3);
  EXPECT_EQ(count(plan->video_graph.text, "hwupload"), nvdec ? 0 : 1);
  for (const OutputPlan& output : plan->outputs) {
    EXPECT_EQ(output.video.encoder, "libx264");
    EXPECT_EQ(output.video.pix_fmt, AV_PIX_FMT_NV12);  // x264 takes nv12: no extra conversion
  }
  EXPECT_EQ(stage(*plan, "download out1")->component,
            "av_hwframe_transfer_data, on the output's thread");
  // The ffmpeg CLI's command downloads in its graph, and maps what comes down.
  std::string command = ffmpeg_command(*plan, job(ladder(), BackendKind::kCuda));
  EXPECT_EQ(count(command, "hwdownload,format=nv12"), 3) << command;
  for (const char* sink :
       {"[out0]hwdownload,format=nv12[out0m]", "-map '[out0m]'", "-map '[out1m]'"})
    EXPECT_NE(command.find(sink), std::string::npos) << sink << " in " << command;
}

TEST(CudaPlan, NvencKeepsFramesOnTheGpu) {
  Result<Plan> plan = make_plan(job({output("a.mp4", 1280, 720)}, BackendKind::kCuda), media(),
                                inventory({h200(true)}));
  ASSERT_TRUE(plan.is_ok());
  if (avcodec_find_encoder_by_name("h264_nvenc") == nullptr)
    GTEST_SKIP() << "no h264_nvenc in this FFmpeg";
  EXPECT_EQ(plan->outputs[0].video.encoder, "h264_nvenc");
  EXPECT_EQ(count(plan->video_graph.text, "hwdownload"), 0) << plan->video_graph.text;
}

TEST(GraphBuilder, SingleConsumerExtendsTheChain) {
  GraphBuilder graph("split");
  auto taps = graph.fan_out({"[in]", "hwupload"}, "scale=2:2", 1);
  graph.terminate(taps[0], "format=nv12", "out0");
  EXPECT_EQ(graph.text(), "[in]hwupload,scale=2:2,format=nv12[out0]");
  EXPECT_EQ(GraphBuilder::substitute("scale_vaapi=w=%W:h=%H", 640, 360), "scale_vaapi=w=640:h=360");
}

TEST(Describe, SaysWhereFramesAreCopied) {
  Result<Plan> pure =
      make_plan(job(ladder(), BackendKind::kVaapi), media(), inventory({intel_gpu()}));
  ASSERT_TRUE(pure.is_ok());
  EXPECT_NE(describe(*pure).find("frames copied between device and memory: none"),
            std::string::npos);
  EXPECT_NE(describe(*pure).find("h264_vaapi (full) [vaapi /dev/dri/renderD128 (i915)]"),
            std::string::npos)
      << describe(*pure);
}

}  // namespace
}  // namespace tc
