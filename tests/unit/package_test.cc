// Package plans, validation, codec strings and manifests: no media, no hardware.
#include <gtest/gtest.h>

#include <cstring>

#include "pipeline/exec/report.h"
#include "pipeline/hw/backends.h"
#include "pipeline/package/codec_string.h"
#include "pipeline/package/manifests.h"
#include "pipeline/package/package_writer.h"
#include "pipeline/spec/package_spec.h"
#include "tests/unit/fixtures.h"
#include "tests/unit/option_truth.h"

namespace tc {
namespace {

using testing::inventory;
using testing::job;
using testing::media;
using testing::output;

JobSpec package_job(std::vector<OutputSpec> renditions, BackendKind backend = BackendKind::kAuto,
                    PackageKind kind = PackageKind::kCmaf) {
  JobSpec spec = job(std::move(renditions), backend);
  spec.package.kind = kind;
  spec.package.dir = "/out/show";
  spec.package.segment_s = 4;
  normalize(spec);
  return spec;
}

// Renditions are named; the same ladder as files has extensions.
std::vector<OutputSpec> ladder(VideoCodec codec = VideoCodec::kH264, std::string ext = "") {
  return {output("1080p" + ext, 1920, 1080, codec), output("720p" + ext, 1280, 720, codec),
          output("360p" + ext, 640, 360, codec)};
}

HwDevice gpu_of(BackendKind backend) {
  HwDevice device = testing::intel_gpu();
  device.backend = backend;
  if (backend == BackendKind::kCuda) device.path = "0";
  for (VideoCodec codec : {VideoCodec::kH264, VideoCodec::kHevc, VideoCodec::kAv1})
    device.encode[codec_id(codec)] = {true, true};
  return device;
}

std::string option(const VideoEncodePlan& video, const std::string& key) {
  for (const auto& [name, value] : video.options)
    if (name == key) return value;
  return "";
}

TEST(PackagePlan, GopFromSegmentAndFrameRateKeyframesForcedByTime) {
  Result<Plan> plan = make_plan(package_job(ladder()), media(), inventory({}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_EQ(plan->package.gop, 120);  // 4 s at 30 fps
  for (const OutputPlan& output : plan->outputs) {
    EXPECT_EQ(output.video.gop, 120);
    EXPECT_EQ(output.video.keyframe_interval_us, 4'000'000);
    EXPECT_EQ(option(output.video, "sc_threshold"), "0");
    EXPECT_EQ(option(output.video, "forced-idr"), "1");
    EXPECT_EQ(output.audio.size(), &output == &plan->outputs[0] ? 1u : 0u);
  }
  std::string text = describe(*plan);
  EXPECT_NE(text.find("segment GOP: 120 frames at 30 fps"), std::string::npos) << text;
}

// A rendition at its own --fps counts its GOP in that rate (4 s at 25 fps: 100 frames), the
// others in the source's; every keyframe is still forced at the same 4 s.
TEST(PackagePlan, ARenditionWithItsOwnFrameRateCountsItsGopInIt) {
  std::vector<OutputSpec> renditions = ladder();
  renditions[2].fps = {25, 1};
  Result<Plan> plan = make_plan(package_job(renditions), media(), inventory({}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  EXPECT_EQ(plan->outputs[0].video.gop, 120);
  EXPECT_EQ(plan->outputs[2].video.gop, 100);
  EXPECT_EQ(option(plan->outputs[2].video, "keyint_min"), "100");
  EXPECT_EQ(plan->outputs[2].video.keyframe_interval_us, 4'000'000);
}

TEST(PackagePlan, X265ClosesGopsAndDropsSceneCuts) {
  Result<Plan> plan = make_plan(package_job(ladder(VideoCodec::kHevc)), media(), inventory({}));
  ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
  std::string params = option(plan->outputs[0].video, "x265-params");
  EXPECT_NE(params.find("scenecut=0"), std::string::npos) << params;
  EXPECT_NE(params.find("open-gop=0"), std::string::npos) << params;
}

// A package adds no transfers: a pure VA-API or CUDA ladder stays on the device.
TEST(PackagePlan, DevicePackagesAddNoTransfers) {
  for (BackendKind backend : {BackendKind::kVaapi, BackendKind::kCuda}) {
    Result<Plan> files = make_plan(job(ladder(VideoCodec::kH264, ".mp4"), backend), media(),
                                   inventory({gpu_of(backend)}));
    Result<Plan> package =
        make_plan(package_job(ladder(), backend), media(), inventory({gpu_of(backend)}));
    ASSERT_TRUE(files.is_ok()) << files.status().to_string();
    ASSERT_TRUE(package.is_ok()) << package.status().to_string();
    EXPECT_EQ(package->crossings(), files->crossings()) << name_of(backend);
    EXPECT_EQ(package->video_graph.text, files->video_graph.text) << name_of(backend);
    for (const OutputPlan& output : package->outputs)
      EXPECT_EQ(output.video.keyframe_interval_us, 4'000'000) << output.video.encoder;
  }
}

// Every keyframe option a package plans exists in this FFmpeg, for each backend and codec.
TEST(PackagePlan, EveryKeyframeOptionExistsInThisBuild) {
  for (BackendKind backend : {BackendKind::kSoftware, BackendKind::kVaapi, BackendKind::kCuda})
    for (VideoCodec codec : {VideoCodec::kH264, VideoCodec::kHevc, VideoCodec::kAv1}) {
      std::vector<HwDevice> devices;
      if (backend != BackendKind::kSoftware) devices.push_back(gpu_of(backend));
      Result<Plan> plan =
          make_plan(package_job(ladder(codec), backend), media(), inventory(std::move(devices)));
      ASSERT_TRUE(plan.is_ok()) << plan.status().to_string();
      testing::OptionTruth truth = testing::check_option_truth(*plan);
      EXPECT_TRUE(truth.missing.empty()) << name_of(backend) << " " << name_of(codec) << ": "
                                         << ::testing::PrintToString(truth.missing);
    }
}

TEST(PackageSpec, BadOptionsNameTheField) {
  struct Case {
    void (*change)(JobSpec&);
    std::string field;
  };
  for (const Case& bad : std::vector<Case>{
           {[](JobSpec& s) { s.package.segment_s = 0; }, "package.segment_s"},
           {[](JobSpec& s) { s.package.segment_s = -1; }, "package.segment_s"},
           {[](JobSpec& s) { s.package.segment_s = 600; }, "package.segment_s"},
           {[](JobSpec& s) { s.package.dir = ""; }, "package.dir"},
           {[](JobSpec& s) { s.package.segment_name = "seg"; }, "package.segment_name"},
           {[](JobSpec& s) { s.package.segment_name = "../{n}"; }, "package.segment_name"},
           {[](JobSpec& s) { s.outputs[0].codec = VideoCodec::kVp9; }, "outputs[0].codec"},
           {[](JobSpec& s) {
              s.outputs[1].codec = VideoCodec::kCopy;
              s.outputs[1].width = s.outputs[1].height = 0;
            },
            "outputs[1].codec"},
           {[](JobSpec& s) { s.outputs[0].path = "a/b"; }, "outputs[0].path"},
           {[](JobSpec& s) { s.outputs[0].path = "audio_1"; }, "outputs[0].path"},
           // MPEG-TS segments: HLS only, H.264 only (package_job is cmaf).
           {[](JobSpec& s) { s.package.segment_format = SegmentFormat::kTs; },
            "package.segment_format"},
           {[](JobSpec& s) {
              s.package.kind = PackageKind::kHls;
              s.package.segment_format = SegmentFormat::kTs;
              s.outputs[1].codec = VideoCodec::kHevc;
            },
            "outputs[1].codec"},
       }) {
    JobSpec spec = package_job({output("a", 640, 360), output("b", 320, 180)});
    bad.change(spec);
    Status status = validate(spec);
    EXPECT_EQ(status.code(), Code::kInvalidArgument) << bad.field;
    EXPECT_NE(status.message().find(bad.field), std::string::npos) << status.message();
  }
}

TEST(PackageSpec, JsonRoundTrip) {
  JobSpec spec = package_job(ladder(), BackendKind::kAuto, PackageKind::kHls);
  spec.package.segment_s = 6;
  spec.package.segment_name = "chunk-{n}";
  spec.package.segment_format = SegmentFormat::kTs;
  Result<JobSpec> back = job_spec_from_json(job_spec_to_json(spec));
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  EXPECT_EQ(*back, spec);
  EXPECT_EQ(segment_file_name("chunk-{n}", 12), "chunk-00012");
}

std::string bytes(std::initializer_list<int> values) {
  std::string out;
  for (int v : values) out.push_back(char(v));
  return out;
}

std::string codec_of(AVCodecID id, const std::string& extradata) {
  AVCodecParameters* par = avcodec_parameters_alloc();
  par->codec_id = id;
  par->extradata = static_cast<uint8_t*>(av_mallocz(extradata.size() + 64));
  std::memcpy(par->extradata, extradata.data(), extradata.size());
  par->extradata_size = int(extradata.size());
  std::string text = package::codec_string(*par);
  avcodec_parameters_free(&par);
  return text;
}

TEST(CodecString, FromTheEncodersParameterSets) {
  // libx264's Annex B SPS: High (100), level 3.1.
  EXPECT_EQ(codec_of(AV_CODEC_ID_H264, bytes({0, 0, 0, 1, 0x67, 0x64, 0x00, 0x1f, 0xac})),
            "avc1.64001f");
  // An avcC record: Main, level 3.0.
  EXPECT_EQ(codec_of(AV_CODEC_ID_H264, bytes({1, 0x4d, 0x40, 0x1e, 0xff})), "avc1.4d401e");
  // An HEVC SPS: Main, compatible with Main and Main 10, level 3.1, progressive source flag.
  EXPECT_EQ(codec_of(AV_CODEC_ID_HEVC,
                     bytes({0,    0,    0,    1,    0x42, 0x01, 0x01, 0x01, 0x60, 0x00, 0x00,
                            0x03, 0x00, 0xb0, 0x00, 0x00, 0x03, 0x00, 0x00, 0x03, 0x00, 0x5d})),
            "hvc1.1.6.L93.B0");
  // An av1C record: profile 0, level 8 (4.0), Main tier, 8-bit.
  EXPECT_EQ(codec_of(AV_CODEC_ID_AV1, bytes({0x81, 0x08, 0x0c, 0x00})), "av01.0.08M.08");
  // AAC-LC AudioSpecificConfig (44.1 kHz stereo).
  EXPECT_EQ(codec_of(AV_CODEC_ID_AAC, bytes({0x12, 0x10})), "mp4a.40.2");
}

package::TrackMeasure track(const std::string& name, std::vector<int64_t> starts, bool key = true) {
  package::TrackMeasure track;
  track.name = name;
  track.time_base = {1, 1000};
  track.frame_rate = {30, 1};
  track.width = 640;
  track.height = 360;
  track.codec = "avc1.64001e";
  for (size_t i = 0; i < starts.size(); ++i)
    track.segments.push_back({starts[i], 2000, 250'000, key});
  return track;
}

TEST(Manifests, MeasuredFiguresAndAlignment) {
  package::PackageMeasure measure;
  measure.segment_name = "seg_{n}";
  measure.video = {track("360p", {0, 2000, 4000})};
  measure.video[0].segments[1].bytes = 500'000;  // the peak: 2 Mbit/s
  std::string master = package::hls_master(measure);
  EXPECT_NE(master.find("BANDWIDTH=2000000,AVERAGE-BANDWIDTH=1333333"), std::string::npos)
      << master;
  EXPECT_NE(master.find("RESOLUTION=640x360,FRAME-RATE=30.000,CODECS=\"avc1.64001e\""),
            std::string::npos);
  EXPECT_EQ(package::hls_target_duration(measure), 2);
  std::string playlist = package::hls_media_playlist(measure.video[0], "seg_{n}", 2);
  EXPECT_NE(playlist.find("#EXT-X-TARGETDURATION:2\n"), std::string::npos) << playlist;
  EXPECT_NE(playlist.find("#EXTINF:2.000000,\nseg_00003.m4s\n#EXT-X-ENDLIST"), std::string::npos);
  std::string mpd = package::dash_mpd(measure);
  EXPECT_NE(mpd.find("media=\"360p/seg_$Number%05d$.m4s\""), std::string::npos) << mpd;

  // The media's times are the source's plus the media shift (1.4 s), in every track; the period
  // starts at the package's first content: the video's first frame (0), and AAC's first packet
  // at -1024 samples is priming before it.
  measure.video[0].media_shift = 1400;
  measure.audio = {track("audio_1", {-21, 1979, 3979})};
  measure.audio[0].media_shift = 1400;
  measure.audio[0].content_start = 0;
  measure.audio[0].segments[2].duration = 4000;  // an audio segment longer than the video's
  mpd = package::dash_mpd(measure);
  EXPECT_NE(mpd.find("startNumber=\"1\" presentationTimeOffset=\"1400\">\n          "
                     "<SegmentTimeline>\n            <S t=\"1400\" d=\"2000\"/>"),
            std::string::npos)
      << mpd;
  EXPECT_NE(mpd.find("startNumber=\"1\" presentationTimeOffset=\"1400\">\n          "
                     "<SegmentTimeline>\n            <S t=\"1379\" d=\"2000\"/>"),
            std::string::npos)
      << mpd;
  // One target duration for every media playlist of the package: the audio's 4 s here.
  EXPECT_EQ(package::hls_target_duration(measure), 4);

  // MPEG-TS segments: no init segment to map, the oldest version that reads them.
  measure.segment_format = SegmentFormat::kTs;
  measure.video[0].format = SegmentFormat::kTs;
  EXPECT_NE(package::hls_master(measure).find("#EXT-X-VERSION:3\n"), std::string::npos);
  playlist = package::hls_media_playlist(measure.video[0], "seg_{n}", 2);
  EXPECT_EQ(playlist.find("EXT-X-MAP"), std::string::npos) << playlist;
  EXPECT_NE(playlist.find("#EXT-X-VERSION:3\n"), std::string::npos) << playlist;
  EXPECT_NE(playlist.find("#EXTINF:2.000000,\nseg_00003.ts\n#EXT-X-ENDLIST"), std::string::npos)
      << playlist;

  EXPECT_TRUE(package::keyframes_aligned({track("a", {0, 2000}), track("b", {0, 2010})}));
  EXPECT_FALSE(package::keyframes_aligned({track("a", {0, 2000}), track("b", {0, 2100})}));
  EXPECT_FALSE(package::keyframes_aligned({track("a", {0, 2000}), track("b", {0, 2000}, false)}));
  EXPECT_FALSE(package::keyframes_aligned({track("a", {0, 2000}), track("b", {0})}));
}

TEST(PackageReportJson, RoundTrips) {
  JobReport report;
  report.package = PackageReport{"cmaf", "/out/show", 4, {"master.m3u8", "manifest.mpd"}, {}, true};
  report.package->renditions.push_back(
      {"720p", "video", 1280, 720, "avc1.64001f", "", 3'000'000, 2'500'000, 5, 20, true});
  nlohmann::json j = report;
  JobReport back;
  ASSERT_TRUE(from_json(j, back).is_ok());
  EXPECT_EQ(back.package, report.package);
}

}  // namespace
}  // namespace tc
