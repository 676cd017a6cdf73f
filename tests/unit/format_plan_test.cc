// Plans for HDR, 10-bit, 4:2:2 / 4:4:4 and interlaced sources on every backend: where formats
// are converted, where tone-mapping and deinterlacing run, what each output is tagged with, and
// how many times frames cross between device and memory.
#include <gtest/gtest.h>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavfilter/avfilter.h>
#include <libavutil/opt.h>
}

#include "pipeline/hw/backends.h"
#include "pipeline/plan/graph_builder.h"
#include "pipeline/plan/plan.h"
#include "pipeline/plan/video_format.h"
#include "tests/unit/fixtures.h"
#include "tests/unit/graph_run.h"

namespace tc {
namespace {

using testing::intel_gpu;
using testing::inventory;
using testing::job;
using testing::lavapipe;
using testing::media;
using testing::output;
using testing::output_downloads;

bool has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

constexpr auto count = testing::occurrences;

// HEVC Main 10, PQ, BT.2020: an HDR10 source (what libx265 writes with master-display).
MediaInfo hdr10(int width = 3840, int height = 2160) {
  MediaInfo info = media(AV_CODEC_ID_HEVC, width, height, 10);
  info.video->color = {AVCOL_PRI_BT2020, AVCOL_TRC_SMPTE2084, AVCOL_SPC_BT2020_NCL,
                       AVCOL_RANGE_MPEG};
  info.video->mastering_display = true;
  info.video->content_light = true;
  return info;
}

MediaInfo hlg() {
  MediaInfo info = hdr10(1920, 1080);
  info.video->color.transfer = AVCOL_TRC_ARIB_STD_B67;
  return info;
}

MediaInfo chroma(ChromaFormat format, int bit_depth = 8) {
  MediaInfo info = media(AV_CODEC_ID_H264, 1920, 1080, bit_depth);
  info.video->chroma = format;
  info.video->pix_fmt = planar_format(bit_depth, format);
  return info;
}

MediaInfo interlaced() {
  MediaInfo info = media(AV_CODEC_ID_MPEG2VIDEO, 720, 576);
  info.video->field_order = AV_FIELD_TT;
  return info;
}

HwDevice h200() {  // NVDEC (HEVC Main 10), no NVENC
  HwDevice device;
  device.backend = BackendKind::kCuda;
  device.path = "0";
  device.driver = "nvidia";
  device.decode = {{AV_CODEC_ID_H264, 8}, {AV_CODEC_ID_HEVC, 10}};
  device.can_scale = true;
  return device;
}

#define SKIP_WITHOUT_ENCODER(name) \
  if (!avcodec_find_encoder_by_name(name)) GTEST_SKIP() << name << " is not in this FFmpeg build"
#define SKIP_WITHOUT_ZSCALE() \
  if (!avfilter_get_by_name("zscale")) GTEST_SKIP() << "no zscale in this FFmpeg build"

OutputSpec hevc(const std::string& path, int width = 0, int height = 0) {
  return output(path, width, height, VideoCodec::kHevc);
}

// --- software ---

TEST(HdrPlan, SoftwareKeepsHdrTenBitWithTagsAndMetadataForHevc) {
  SKIP_WITHOUT_ENCODER("libx265");
  Result<Plan> plan = make_plan(job({hevc("a.mkv", 1920, 1080)}), hdr10(), inventory({}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  const VideoEncodePlan& video = plan->outputs[0].video;
  EXPECT_EQ(video.pix_fmt, AV_PIX_FMT_YUV420P10LE);
  EXPECT_EQ(video.format.bit_depth, 10);
  EXPECT_EQ(video.format.profile, "Main 10");
  EXPECT_EQ(video.format.color, hdr10().video->color);
  EXPECT_TRUE(video.format.hdr_metadata);
  EXPECT_FALSE(video.format.to_sdr);
  EXPECT_EQ(plan->video_graph.text, "[in]scale=1920:1080,format=yuv420p10le[out0]");
}

TEST(HdrPlan, SoftwareTonemapsForH264ByDefault) {
  SKIP_WITHOUT_ZSCALE();
  Result<Plan> plan = make_plan(job({output("a.mp4", 1920, 1080)}), hdr10(), inventory({}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  const VideoFormatPlan& format = plan->outputs[0].video.format;
  EXPECT_EQ(format.bit_depth, 8);
  EXPECT_TRUE(format.to_sdr);
  EXPECT_FALSE(format.hdr_metadata);
  EXPECT_EQ(format.color.transfer, AVCOL_TRC_BT709);
  EXPECT_EQ(format.color.primaries, AVCOL_PRI_BT709);
  EXPECT_EQ(format.color.matrix, AVCOL_SPC_BT709);
  EXPECT_TRUE(has(format.to_sdr_where, "cpu"));
  // Scaled first (a quarter of the pixels to tone-map), then tone-mapped, then 8-bit.
  EXPECT_TRUE(has(plan->video_graph.text, "scale=1920:1080,zscale=t=linear"))
      << plan->video_graph.text;
  EXPECT_TRUE(has(plan->video_graph.text, "tonemap=tonemap=hable"));
  EXPECT_TRUE(has(plan->video_graph.text, "format=yuv420p[out0]"));
}

TEST(HdrPlan, TonemapAskedForHevcGivesSdr) {
  SKIP_WITHOUT_ZSCALE();
  OutputSpec spec = hevc("a.mkv");
  spec.hdr = HdrMode::kTonemap;
  Result<Plan> plan = make_plan(job({spec}), hdr10(), inventory({}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_EQ(plan->outputs[0].video.format.bit_depth, 8);
  EXPECT_EQ(plan->outputs[0].video.format.profile, "Main");
  EXPECT_EQ(plan->outputs[0].video.format.color.transfer, AVCOL_TRC_BT709);
}

TEST(HdrPlan, HlgTonemapsInSoftwareOnEveryBackend) {
  SKIP_WITHOUT_ZSCALE();
  // tonemap_vaapi has no HLG curve: HLG goes down to memory even on VA-API.
  Result<Plan> plan = make_plan(job({output("a.mp4", 1280, 720)}, BackendKind::kVaapi), hlg(),
                                inventory({intel_gpu()}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  const std::string& graph = plan->video_graph.text;
  EXPECT_FALSE(has(graph, "tonemap_vaapi")) << graph;
  EXPECT_TRUE(has(graph, "scale_vaapi=w=1280:h=720:format=p010le"))
      << graph;  // 10 bits for the tone curve
  EXPECT_TRUE(has(graph, "hwdownload,format=p010le,zscale=t=linear")) << graph;
  // h264_vaapi encodes: frames go back up after the tone-map (two crossings, both named).
  EXPECT_TRUE(has(graph, "format=nv12,hwupload")) << graph;
  EXPECT_EQ(plan->outputs[0].video.encoder, "h264_vaapi");
  EXPECT_EQ(plan->crossings(), 2);
}

// zimg refuses to convert from unset properties: the graph names what the source leaves unset
// (BT.2020 primaries, the SDR transfer), and only that.
TEST(HdrPlan, ConversionAssumesWhatAWideSourceLeavesUnset) {
  SKIP_WITHOUT_ZSCALE();
  MediaInfo matrix_only = media(AV_CODEC_ID_HEVC, 1920, 1080, 10);
  matrix_only.video->color.matrix = AVCOL_SPC_BT2020_NCL;
  Result<Plan> plan = make_plan(job({output("a.mp4")}), matrix_only, inventory({}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  const std::string& graph = plan->video_graph.text;
  EXPECT_TRUE(has(graph, "zscale=p=bt709:t=bt709:m=bt709:r=tv:pin=bt2020:tin=bt709,")) << graph;
  EXPECT_FALSE(has(graph, "min=")) << graph;
  plan = make_plan(job({output("a.mp4")}), hlg(), inventory({}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_TRUE(has(plan->video_graph.text, "zscale=t=linear:npl=100,")) << plan->video_graph.text;
}

TEST(HdrPlan, KeepWithoutATenBitEncoderIsRefusedNamingTheWayOut) {
  OutputSpec spec = output("a.mp4");
  spec.hdr = HdrMode::kKeep;
  // h264_vaapi has no 10-bit profile.
  Result<Plan> plan =
      make_plan(job({spec}, BackendKind::kVaapi), hdr10(), inventory({intel_gpu()}));
  ASSERT_FALSE(plan.is_ok());
  EXPECT_EQ(plan.status().code(), Code::kUnsupported);
  EXPECT_TRUE(has(plan.status().message(), "--hdr keep")) << plan.status().message();
  EXPECT_TRUE(has(plan.status().message(), "h264_vaapi"));
  EXPECT_TRUE(has(plan.status().message(), "--hdr tonemap"));
}

TEST(HdrPlan, NeverEightBitTaggedPqHlgOrBt2020) {
  VideoFormatPlan format;
  format.bit_depth = 8;
  format.color = hdr10().video->color;
  EXPECT_EQ(check_format(format, "a.mp4").code(), Code::kInternal);
  format.color = {AVCOL_PRI_BT2020, AVCOL_TRC_BT709, AVCOL_SPC_BT2020_NCL, AVCOL_RANGE_MPEG};
  EXPECT_EQ(check_format(format, "a.mp4").code(), Code::kInternal);
  format.bit_depth = 10;
  EXPECT_TRUE(check_format(format, "a.mp4").is_ok());
  format.bit_depth = 8;
  format.color = {AVCOL_PRI_BT709, AVCOL_TRC_BT709, AVCOL_SPC_BT709, AVCOL_RANGE_MPEG};
  EXPECT_TRUE(check_format(format, "a.mp4").is_ok());
}

TEST(HdrPlan, EveryPlannedOutputKeepsTheInvariant) {
  MediaInfo bt2020_sdr = media(AV_CODEC_ID_HEVC, 1920, 1080, 10);
  bt2020_sdr.video->color = {AVCOL_PRI_BT2020, AVCOL_TRC_BT709, AVCOL_SPC_BT2020_NCL,
                             AVCOL_RANGE_MPEG};
  int planned = 0;
  for (const MediaInfo& source : {hdr10(), hlg(), bt2020_sdr})
    for (BackendKind backend :
         {BackendKind::kSoftware, BackendKind::kVaapi, BackendKind::kCuda, BackendKind::kVulkan})
      for (VideoCodec codec : {VideoCodec::kH264, VideoCodec::kHevc, VideoCodec::kVp9}) {
        Result<Plan> plan = make_plan(job({output("a.mkv", 1280, 720, codec)}, backend), source,
                                      inventory({intel_gpu(), h200(), lavapipe()}));
        if (!plan.is_ok()) continue;  // an encoder this build lacks
        ++planned;
        const VideoFormatPlan& format = plan->outputs[0].video.format;
        std::string where = std::string(name_of(backend)) + " " + std::string(name_of(codec));
        EXPECT_TRUE(check_format(format, "a.mkv").is_ok()) << where;
        EXPECT_EQ(format.bit_depth == 8, format.to_sdr) << where;
        // The invariant written out here, not only by the code's own check_format: 8 bits carry
        // neither PQ nor HLG, nor BT.2020 primaries or matrix.
        if (format.bit_depth == 8) {
          EXPECT_NE(format.color.transfer, AVCOL_TRC_SMPTE2084) << where;
          EXPECT_NE(format.color.transfer, AVCOL_TRC_ARIB_STD_B67) << where;
          EXPECT_NE(format.color.primaries, AVCOL_PRI_BT2020) << where;
          EXPECT_NE(format.color.matrix, AVCOL_SPC_BT2020_NCL) << where;
        }
      }
  // Every combination plans (3 sources x 4 backends x 3 codecs): none is skipped unchecked.
  EXPECT_EQ(planned, 36);
}

TEST(HdrPlan, KeepingHdrAutoIsPerOutput) {
  SKIP_WITHOUT_ENCODER("libx265");
  SKIP_WITHOUT_ZSCALE();
  Result<Plan> plan = make_plan(job({hevc("a.mkv", 1920, 1080), output("b.mp4", 1280, 720)}),
                                hdr10(), inventory({}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_EQ(plan->outputs[0].video.format.bit_depth, 10);
  EXPECT_EQ(plan->outputs[1].video.format.bit_depth, 8);
  // The 720p output cascades from the 1080p one's scaled (still HDR) frames: only it tone-maps.
  EXPECT_EQ(count(plan->video_graph.text, "tonemap=hable"), 1) << plan->video_graph.text;
}

// --- VA-API ---

TEST(HdrPlan, VaapiKeepsP010OnTheGpuForHevc) {
  Result<Plan> plan =
      make_plan(job({hevc("a.mkv", 1920, 1080), hevc("b.mkv", 1280, 720)}, BackendKind::kVaapi),
                hdr10(), inventory({intel_gpu()}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_TRUE(plan->decode.hw);
  EXPECT_EQ(plan->crossings(), 0) << plan->video_graph.text;
  EXPECT_EQ(count(plan->video_graph.text, ":format=p010le"), 2) << plan->video_graph.text;
  for (const OutputPlan& output : plan->outputs) {
    EXPECT_EQ(output.video.encoder, "hevc_vaapi");
    EXPECT_EQ(output.video.pix_fmt, AV_PIX_FMT_P010LE);
    EXPECT_EQ(output.video.format.profile, "Main 10");
    EXPECT_TRUE(output.video.format.hdr_metadata);
  }
}

TEST(HdrPlan, VaapiTonemapsPqOnTheGpu) {
  Result<Plan> plan = make_plan(job({output("a.mp4", 1280, 720)}, BackendKind::kVaapi), hdr10(),
                                inventory({intel_gpu()}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_EQ(plan->crossings(), 0) << plan->video_graph.text;
  EXPECT_TRUE(has(plan->video_graph.text,
                  "tonemap_vaapi=format=nv12:p=bt709:t=bt709:m=bt709,scale_vaapi=w=1280:h=720:"
                  "format=nv12"))
      << plan->video_graph.text;
  EXPECT_TRUE(has(plan->outputs[0].video.format.to_sdr_where, "tonemap_vaapi on the device"));
}

// tonemap_vaapi fails on a frame without mastering display metadata: the plan says whose each
// frame gets when it has none of its own.
TEST(HdrPlan, VaapiTonemapSaysWhoseMasteringDisplayFramesWithoutOneGet) {
  MediaInfo undeclared = hdr10();  // in-band SEI only, as an MPEG-TS would have it
  undeclared.video->mastering_display = false;
  for (const auto& [source, whose] :
       {std::pair{undeclared, "else assumed P3 D65 1000 cd/m2: the source declares none"},
        std::pair{hdr10(), "else the container's"}}) {
    Result<Plan> plan = make_plan(job({output("a.mp4", 1280, 720)}, BackendKind::kVaapi), source,
                                  inventory({intel_gpu()}));
    ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
    const std::string& where = plan->outputs[0].video.format.to_sdr_where;
    EXPECT_TRUE(has(where, "tonemap_vaapi on the device (mastering display: the frames', "))
        << where;
    EXPECT_TRUE(has(where, whose)) << where;
    EXPECT_TRUE(has(describe(*plan), whose));
  }
}

// libx265 writes HDR10 SEI only from its parameters: the container's declared values go into
// the plan's x265-params, and so into --dry-run's ffmpeg command.
TEST(HdrPlan, X265GetsTheDeclaredMasteringDisplayAndContentLight) {
  MediaInfo source = hdr10(1920, 1080);
  JobSpec spec = job({output("a.mkv", 0, 0, VideoCodec::kHevc)}, BackendKind::kSoftware);
  Result<Plan> undeclared = make_plan(spec, source, inventory({}));
  ASSERT_TRUE(undeclared.is_ok()) << undeclared.status().to_string();
  EXPECT_FALSE(has(ffmpeg_command(*undeclared, spec), "master-display"))
      << "nothing declared: the frames' are read at run time";
  EXPECT_TRUE(has(describe(*undeclared), "libx265 gets the first frame's at run time"))
      << describe(*undeclared);

  AVMasteringDisplayMetadata mastering{};
  mastering.display_primaries[0][0] = {34000, 50000};
  mastering.display_primaries[0][1] = {16000, 50000};
  mastering.display_primaries[1][0] = {13250, 50000};
  mastering.display_primaries[1][1] = {34500, 50000};
  mastering.display_primaries[2][0] = {7500, 50000};
  mastering.display_primaries[2][1] = {3000, 50000};
  mastering.white_point[0] = {15635, 50000};
  mastering.white_point[1] = {16450, 50000};
  mastering.max_luminance = {1000, 1};
  mastering.min_luminance = {1, 10000};
  mastering.has_primaries = mastering.has_luminance = 1;
  source.video->mastering_display = source.video->content_light = true;
  source.video->mastering_display_values = mastering;
  source.video->content_light_values = AVContentLightMetadata{1000, 400};
  Result<Plan> plan = make_plan(spec, source, inventory({}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  std::string command = ffmpeg_command(*plan, spec);
  EXPECT_TRUE(has(command,
                  "log-level=error:master-display=G(13250,34500)B(7500,3000)R(34000,16000)"
                  "WP(15635,16450)L(10000000,1):max-cll=1000,400"))
      << command;
  EXPECT_FALSE(has(describe(*plan), "at run time")) << describe(*plan);
  // Tone-mapped to H.264: no HDR parameters anywhere.
  JobSpec h264 = job({output("b.mp4")}, BackendKind::kSoftware);
  Result<Plan> sdr = make_plan(h264, source, inventory({}));
  ASSERT_TRUE(sdr.is_ok());
  EXPECT_FALSE(has(ffmpeg_command(*sdr, h264), "master-display"));
}

TEST(HdrPlan, VaapiTenBitSdrToH264ConvertsOnTheGpu) {
  Result<Plan> plan = make_plan(job({output("a.mp4", 1280, 720)}, BackendKind::kVaapi),
                                media(AV_CODEC_ID_HEVC, 1920, 1080, 10), inventory({intel_gpu()}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_TRUE(has(plan->video_graph.text, "scale_vaapi=w=1280:h=720:format=nv12"));
  EXPECT_EQ(plan->crossings(), 0);
  EXPECT_EQ(plan->outputs[0].video.format.bit_depth, 8);
}

TEST(ChromaPlan, VaapiDecodes444InSoftwareAndUploads420) {
  Result<Plan> plan = make_plan(job({output("a.mp4", 1280, 720)}, BackendKind::kVaapi),
                                chroma(ChromaFormat::k444), inventory({intel_gpu()}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_FALSE(plan->decode.hw);
  EXPECT_TRUE(has(plan->decode.note, "4:4:4")) << plan->decode.note;
  EXPECT_EQ(plan->video_graph.text.rfind("[in]format=nv12,hwupload", 0), 0u)
      << plan->video_graph.text;
  EXPECT_EQ(plan->crossings(), 1);
  EXPECT_EQ(plan->outputs[0].video.format.chroma, ChromaFormat::k420);
}

// --- cuda ---

TEST(CudaFormatPlan, TenBitHevcToH264LadderConvertsOnTheGpuBeforeTheDownload) {
  // The bug: scale_cuda kept p010 and "hwdownload,format=nv12" could not configure.
  Result<Plan> plan =
      make_plan(job({output("a.mp4", 1920, 1080), output("b.mp4", 1280, 720)}, BackendKind::kCuda),
                media(AV_CODEC_ID_HEVC, 3840, 2160, 10), inventory({h200()}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  const std::string& graph = plan->video_graph.text;
  EXPECT_EQ(count(graph, ":format=nv12"), count(graph, "scale_cuda=")) << graph;
  EXPECT_EQ(output_downloads(plan->video_graph, "hwdownload,format=nv12"), 2) << graph;
  EXPECT_FALSE(has(graph, "p010")) << graph;
  EXPECT_EQ(plan->video_graph.downloads, 2);
}

TEST(CudaFormatPlan, Hdr10ToHevcDownloadsP010ForLibx265) {
  SKIP_WITHOUT_ENCODER("libx265");
  Result<Plan> plan =
      make_plan(job({hevc("a.mkv", 1920, 1080)}, BackendKind::kCuda), hdr10(), inventory({h200()}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_TRUE(has(plan->video_graph.text,
                  "scale_cuda=w=1920:h=1080:format=p010le,hwdownload,"
                  "format=p010le,format=yuv420p10le"))
      << plan->video_graph.text;
  EXPECT_EQ(plan->outputs[0].video.format.profile, "Main 10");
}

// The filters of a graph's text between `after` and the sink's label.
std::string chain_after(const std::string& graph, const std::string& after) {
  size_t start = graph.find(after);
  if (start == std::string::npos) return "<no " + after + " in " + graph + ">";
  start += after.size();
  return graph.substr(start, graph.find('[', start) - start);
}

TEST(CudaFormatPlan, Hdr10ToSdrAfterTheDownloadIsAsBrightAsInSoftware) {
  // The bug (issue 43): the chain ended "zscale=t=bt709:m=bt709:r=tv,format=nv12"; zscale writes
  // no nv12, so its last stage stayed in RGB and libavfilter's swscale made the nv12: frames
  // about 45 % too bright (15.5 dB against the software path on an H100).
  SKIP_WITHOUT_ZSCALE();
  Result<Plan> cuda = make_plan(job({output("a.mp4", 1920, 1080)}, BackendKind::kCuda), hdr10(),
                                inventory({h200()}));
  Result<Plan> software = make_plan(job({output("a.mp4", 1920, 1080)}), hdr10(), inventory({}));
  ASSERT_TRUE(cuda.is_ok() && software.is_ok());
  std::string on_download = chain_after(cuda->video_graph.text, "hwdownload,");
  std::string in_software = chain_after(software->video_graph.text, "scale=1920:1080,");
  EXPECT_TRUE(has(on_download, "r=tv,format=yuv420p,format=nv12")) << on_download;
  // A warm colour in PQ (10-bit Y 600, Cb 450, Cr 600), as NVDEC gives it (p010) and as
  // libavcodec does (yuv420p10le). Ending in nv12 made its luma 124.
  ColorTags pq = hdr10().video->color;
  std::array<uint16_t, 3> warm{600, 450, 600};
  testing::OwnedFrame p010 = testing::uniform_frame(AV_PIX_FMT_P010LE, 64, 64, warm, pq);
  testing::OwnedFrame planar = testing::uniform_frame(AV_PIX_FMT_YUV420P10LE, 64, 64, warm, pq);
  double after_download = testing::luma_after(on_download, *p010);
  double after_software = testing::luma_after(in_software, *planar);
  EXPECT_NEAR(after_software, 113, 1) << in_software;
  EXPECT_NEAR(after_download, after_software, 1) << on_download;
}

TEST(CudaFormatPlan, H264Of444DecodesInSoftware) {
  Result<Plan> plan = make_plan(job({output("a.mp4", 1280, 720)}, BackendKind::kCuda),
                                chroma(ChromaFormat::k444), inventory({h200()}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_FALSE(plan->decode.hw);
  EXPECT_TRUE(plan->decode.upload);
  EXPECT_EQ(plan->video_graph.text.rfind("[in]format=nv12,hwupload", 0), 0u);
}

// The H200 has no NVENC: discovery's open of a session failed, and the encode stage says why
// in the probe's words, not only "cannot encode".
TEST(CudaFormatPlan, AnNvencThatWouldNotOpenIsNamedWithItsReason) {
  HwDevice gpu = h200();
  gpu.encode_unavailable[AV_CODEC_ID_H264] =
      "h264_nvenc: Function not implemented (NVENC refused the device: a GPU without NVENC, or a "
      "container without /dev/nvidia0)";
  Result<Plan> plan =
      make_plan(job({output("a.mp4", 1280, 720)}, BackendKind::kCuda), media(), inventory({gpu}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_EQ(plan->outputs[0].video.encoder, "libx264");
  EXPECT_TRUE(plan->outputs[0].video.download);
  EXPECT_EQ(plan->outputs[0].video.note,
            "cuda 0 (nvidia) cannot encode h264 (h264_nvenc: Function not implemented (NVENC "
            "refused the device: a GPU without NVENC, or a container without /dev/nvidia0))");
}

TEST(CudaFormatPlan, LargeDownscalesCascadeInHalvingSteps) {
  Result<Plan> plan = make_plan(job({output("a.mp4", 640, 360)}, BackendKind::kCuda),
                                media(AV_CODEC_ID_HEVC, 3840, 2160), inventory({h200()}));
  ASSERT_TRUE(plan.is_ok());
  // 6:1 in steps of at most 2:1: 2560x1440 (1.5), 1280x720 (2), 640x360 (2).
  const std::string& graph = plan->video_graph.text;
  EXPECT_TRUE(has(graph, "scale_cuda=w=2560:h=1440")) << graph;
  EXPECT_TRUE(has(graph, "scale_cuda=w=1280:h=720")) << graph;
  EXPECT_TRUE(has(graph, "scale_cuda=w=640:h=360")) << graph;
  EXPECT_EQ(plan->video_graph.scalers, 3);
}

// --- vulkan ---

TEST(VulkanFormatPlan, TenBitGoesUpAsTenBitAndComesDownForTheEncoder) {
  SKIP_WITHOUT_ENCODER("libx265");
  Result<Plan> plan =
      make_plan(job({hevc("a.mkv", 1280, 720), output("b.mp4", 1280, 720)}, BackendKind::kVulkan),
                hdr10(1920, 1080), inventory({lavapipe()}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  const std::string& graph = plan->video_graph.text;
  EXPECT_EQ(graph.rfind("[in]format=yuv420p10le,hwupload", 0), 0u) << graph;
  // x265 takes the 10 bits as they come down, on its output's thread; x264's are tone-mapped to
  // 8 bits in the graph after the download.
  EXPECT_EQ(output_downloads(plan->video_graph, "hwdownload,format=yuv420p10le"), 1) << graph;
  EXPECT_EQ(count(graph, "hwdownload,format=yuv420p10le,zscale"), 1) << graph;
  EXPECT_EQ(plan->outputs[0].video.format.bit_depth, 10);
  EXPECT_EQ(plan->outputs[1].video.format.bit_depth, 8);
  EXPECT_EQ(plan->crossings(), 3);
}

// --- deinterlacing ---

TEST(DeinterlacePlan, AutoFollowsTheProbedFieldOrderOnEveryBackend) {
  struct Case {
    BackendKind backend;
    const char* filter;
    BackendKind runs_on;
  };
  for (const Case& c : {Case{BackendKind::kSoftware, "bwdif=", BackendKind::kSoftware},
                        Case{BackendKind::kVaapi, "deinterlace_vaapi=", BackendKind::kVaapi},
                        Case{BackendKind::kCuda, "yadif_cuda=", BackendKind::kCuda},
                        Case{BackendKind::kVulkan, "bwdif=", BackendKind::kSoftware}}) {
    Result<Plan> plan = make_plan(job({output("a.mp4")}, c.backend), interlaced(),
                                  inventory({intel_gpu(), h200(), lavapipe()}));
    ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
    EXPECT_TRUE(plan->deinterlace.on) << name_of(c.backend);
    EXPECT_EQ(plan->deinterlace.device.backend, c.runs_on) << name_of(c.backend);
    EXPECT_EQ(count(plan->video_graph.text, c.filter), 1) << plan->video_graph.text;
    EXPECT_TRUE(has(plan->deinterlace.why, "tt")) << plan->deinterlace.why;
    EXPECT_TRUE(plan->outputs[0].video.progressive);
    Result<Plan> progressive =
        make_plan(job({output("a.mp4")}, c.backend), media(AV_CODEC_ID_MPEG2VIDEO, 720, 576),
                  inventory({intel_gpu(), h200(), lavapipe()}));
    ASSERT_TRUE(progressive.is_ok());
    EXPECT_FALSE(progressive->deinterlace.on);
    EXPECT_FALSE(has(progressive->video_graph.text, c.filter));
  }
}

TEST(DeinterlacePlan, VulkanDeinterlacesBeforeTheUpload) {
  Result<Plan> plan = make_plan(job({output("a.mp4")}, BackendKind::kVulkan), interlaced(),
                                inventory({lavapipe()}));
  ASSERT_TRUE(plan.is_ok());
  EXPECT_EQ(plan->video_graph.text.rfind("[in]bwdif=", 0), 0u) << plan->video_graph.text;
  EXPECT_LT(plan->video_graph.text.find("bwdif"), plan->video_graph.text.find("hwupload"));
}

TEST(DeinterlacePlan, OffLeavesFieldsAloneAndOnForcesIt) {
  JobSpec off = job({output("a.mp4")});
  off.deinterlace = Deinterlace::kOff;
  Result<Plan> plan = make_plan(off, interlaced(), inventory({}));
  ASSERT_TRUE(plan.is_ok());
  EXPECT_FALSE(plan->deinterlace.on);
  JobSpec on = job({output("a.mp4")});
  on.deinterlace = Deinterlace::kOn;
  plan = make_plan(on, media(), inventory({}));
  ASSERT_TRUE(plan.is_ok());
  EXPECT_TRUE(has(plan->video_graph.text, "bwdif=mode=send_frame:parity=auto:deint=all"));
}

TEST(DeinterlacePlan, VaapiPoolIsSizedForEveryBranch) {
  Result<Plan> plan =
      make_plan(job({output("a.mp4"), output("b.mp4", 640, 360)}, BackendKind::kVaapi),
                interlaced(), inventory({intel_gpu()}));
  ASSERT_TRUE(plan.is_ok());
  // A fixed pool on FFmpeg 5.1; from 7.1 it grows on demand and the plan leaves it alone.
  std::string expected = backend_desc(BackendKind::kVaapi).fixed_pools
                             ? "deinterlace_vaapi=rate=frame:auto=1:extra_hw_frames=4"
                             : "deinterlace_vaapi=rate=frame:auto=1,";
  EXPECT_TRUE(has(plan->video_graph.text, expected)) << plan->video_graph.text;
}

// --- software chroma and scaler ---

TEST(ChromaPlan, SoftwareKeeps422And444) {
  for (ChromaFormat format : {ChromaFormat::k422, ChromaFormat::k444}) {
    Result<Plan> plan = make_plan(job({output("a.mkv")}), chroma(format), inventory({}));
    ASSERT_TRUE(plan.is_ok());
    EXPECT_EQ(plan->outputs[0].video.pix_fmt, planar_format(8, format));
    EXPECT_EQ(plan->outputs[0].video.format.chroma, format);
  }
}

TEST(ScalerPlan, VaapiScalerDefaultsToItsHighQualityMode) {
  // scale_vaapi's default mode is hq in the FFmpeg we build against, so the plan leaves it.
  const AVFilter* scale = avfilter_get_by_name("scale_vaapi");
  if (!scale) GTEST_SKIP() << "no scale_vaapi in this FFmpeg";
  const AVClass* options = scale->priv_class;
  const AVOption* mode = av_opt_find(&options, "mode", nullptr, 0, AV_OPT_SEARCH_FAKE_OBJ);
  ASSERT_NE(mode, nullptr);
  const AVOption* hq = av_opt_find(&options, "hq", "mode", 0, AV_OPT_SEARCH_FAKE_OBJ);
  ASSERT_NE(hq, nullptr);
  EXPECT_EQ(mode->default_val.i64, hq->default_val.i64);
}

}  // namespace
}  // namespace tc
