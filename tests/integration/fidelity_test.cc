// What goes in comes out (issue 11): HDR10 and HLG kept or tone-mapped, 10-bit, 4:2:2 and 4:4:4
// sources, interlaced MPEG-2 and H.264, through the software and vulkan (lavapipe) backends for
// real. Inputs are made by the ffmpeg CLI, outputs read back by ffprobe: pixel format, profile,
// colour tags, HDR side data, field order.
#include <gtest/gtest.h>

#include <cstdio>

#include <nlohmann/json.hpp>

#include "service/common/exit_codes.h"
#include "tests/support/media_tools.h"

namespace tc::testing {
namespace {

using nlohmann::json;

// Mastering display and content light as a grading tool would write them (HDR10, P3 D65 1000 nits).
constexpr const char* kHdr10Params =
    "log-level=error:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc:"
    "master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1):"
    "max-cll=1000,400";

void make(const std::string& path, const std::vector<std::string>& encode,
          const std::string& filter = "") {
  std::vector<std::string> argv{"ffmpeg", "-hide_banner", "-loglevel",
                                "error",  "-y",           "-f",
                                "lavfi",  "-i",           "testsrc2=s=320x180:r=25:d=0.4"};
  if (!filter.empty()) argv.insert(argv.end(), {"-vf", filter});
  argv.insert(argv.end(), encode.begin(), encode.end());
  argv.push_back(path);
  ProcessResult made = run_process(argv);
  ASSERT_EQ(made.exit_code, 0) << made.err;
}

// ffprobe's view of the first video stream and its first frame.
struct VideoProbe {
  json stream;
  json frame;
  // The side data entry of `type` ("Mastering display metadata") on the stream or the first
  // frame; null when neither has it.
  json side_data(const std::string& type) const {
    for (const json* list : {&stream, &frame})
      if (list->contains("side_data_list"))
        for (const json& entry : (*list)["side_data_list"])
          if (entry.value("side_data_type", "") == type) return entry;
    return nullptr;
  }
  std::string field(const char* key) const { return stream.value(key, ""); }
};

// "10000000/10000" or "1000/1" (ffprobe reduces the stream's) -> 1000.
double ratio(const std::string& text) {
  size_t slash = text.find('/');
  if (slash == std::string::npos) return -1;
  return std::stod(text.substr(0, slash)) / std::stod(text.substr(slash + 1));
}

VideoProbe probe_video(const std::string& path) {
  ProcessResult probed =
      run_process({"ffprobe", "-v", "error", "-select_streams", "v:0", "-show_streams",
                   "-show_frames", "-read_intervals", "%+#1", "-of", "json", path});
  VideoProbe probe;
  if (probed.exit_code != 0) return probe;
  json root = json::parse(probed.out, nullptr, false);
  if (root.is_discarded()) return probe;
  if (!root["streams"].empty()) probe.stream = root["streams"][0];
  if (root.contains("frames") && !root["frames"].empty()) probe.frame = root["frames"][0];
  return probe;
}

// ffmpeg's idet filter's multi-frame verdict over a file's frames: what the pixels are, whatever
// the stream is tagged.
struct FieldCounts {
  int interlaced = -1;  // TFF + BFF; -1 where idet gave no verdict
  int progressive = -1;
};

FieldCounts detect_fields(const std::string& path) {
  ProcessResult ran = run_process(
      {"ffmpeg", "-hide_banner", "-nostats", "-i", path, "-vf", "idet", "-an", "-f", "null", "-"});
  FieldCounts counts;
  // The last verdict: FFmpeg 7.1's ffmpeg also logs one of a graph it configured before any
  // frame (all zeros) first.
  size_t at = ran.err.rfind("Multi frame detection:");
  if (ran.exit_code != 0 || at == std::string::npos) return counts;
  int tff = 0, bff = 0, progressive = 0;
  if (std::sscanf(ran.err.c_str() + at, "Multi frame detection: TFF: %d BFF: %d Progressive: %d",
                  &tff, &bff, &progressive) != 3)
    return counts;
  return {tff + bff, progressive};
}

class Fidelity : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() {
    inputs_ = new TempDir();
    const TempDir& in = *inputs_;
    make(in / "hdr10.mp4",
         {"-pix_fmt", "yuv420p10le", "-c:v", "libx265", "-x265-params", kHdr10Params,
          "-color_primaries", "bt2020", "-color_trc", "smpte2084", "-colorspace", "bt2020nc"});
    // FFmpeg 7.1's CLI takes an encoder's primaries and transfer from the frames, not from
    // -color_primaries / -color_trc: setparams tags the frames (and 5.1 reads them too).
    make(in / "hlg.mkv",
         {"-pix_fmt", "yuv420p10le", "-c:v", "libx265", "-x265-params", "log-level=error",
          "-color_primaries", "bt2020", "-color_trc", "arib-std-b67", "-colorspace", "bt2020nc"},
         "setparams=color_primaries=bt2020:color_trc=arib-std-b67:colorspace=bt2020nc");
    // BT.2020 with its matrix alone tagged (primaries and transfer unset): what 7.1's CLI
    // writes for the options above without setparams.
    make(in / "bt2020_matrix_only.mkv",
         {"-pix_fmt", "yuv420p10le", "-c:v", "libx265", "-x265-params", "log-level=error",
          "-colorspace", "bt2020nc"});
    make(in / "h264_10bit.mp4", {"-pix_fmt", "yuv420p10le", "-c:v", "libx264"});
    make(in / "h264_422_10bit.mkv", {"-pix_fmt", "yuv422p10le", "-c:v", "libx264"});
    make(in / "h264_444.mkv", {"-pix_fmt", "yuv444p", "-c:v", "libx264"});
    make(in / "mpeg2_interlaced.ts", {"-c:v", "mpeg2video", "-flags", "+ildct+ilme", "-top", "1"},
         "interlace");
    make(in / "h264_interlaced.mp4", {"-c:v", "libx264", "-flags", "+ildct+ilme", "-top", "1"},
         "interlace");
  }
  static void TearDownTestSuite() { delete inputs_; }

  std::string in(const std::string& name) const { return *inputs_ / name; }

  // Runs the job on this test's backend; skips where that backend has no device here. A skip or
  // fatal failure inside a helper returns from the helper only: callers go through RUN_JOB, which
  // also returns from the test.
  void run(std::vector<std::string> args) {
    args.insert(args.begin(), "run");
    args.insert(args.end(), {"--backend", GetParam(), "-q"});
    ProcessResult ran = transcode(args);
    if (ran.exit_code == kExitDevice) GTEST_SKIP() << "no " << GetParam() << " device: " << ran.err;
    ASSERT_EQ(ran.exit_code, 0) << ran.err;
  }

  // The HDR10 round trip: 10-bit Main 10, PQ / BT.2020 tags, mastering display and content
  // light carried with the source's values.
  static void expect_hdr10_kept(const VideoProbe& out) {
    EXPECT_EQ(out.field("pix_fmt"), "yuv420p10le");
    EXPECT_EQ(out.field("profile"), "Main 10");
    EXPECT_EQ(out.field("color_transfer"), "smpte2084");
    EXPECT_EQ(out.field("color_primaries"), "bt2020");
    EXPECT_EQ(out.field("color_space"), "bt2020nc");
    json mastering = out.side_data("Mastering display metadata");
    ASSERT_FALSE(mastering.is_null()) << out.stream.dump() << out.frame.dump();
    EXPECT_DOUBLE_EQ(ratio(mastering.value("max_luminance", "")), 1000);  // cd/m2
    EXPECT_DOUBLE_EQ(ratio(mastering.value("red_x", "")), 0.68);
    json light = out.side_data("Content light level metadata");
    ASSERT_FALSE(light.is_null());
    EXPECT_EQ(light.value("max_content", 0), 1000);
    EXPECT_EQ(light.value("max_average", 0), 400);
  }

  // SDR BT.709 8-bit: never 8-bit tagged PQ, HLG or BT.2020.
  static void expect_sdr_bt709(const VideoProbe& out) {
    EXPECT_EQ(out.field("pix_fmt"), "yuv420p");
    EXPECT_EQ(out.field("color_transfer"), "bt709");
    EXPECT_EQ(out.field("color_primaries"), "bt709");
    EXPECT_EQ(out.field("color_space"), "bt709");
    EXPECT_TRUE(out.side_data("Mastering display metadata").is_null());
  }

  TempDir out_;
  static TempDir* inputs_;
};

TempDir* Fidelity::inputs_ = nullptr;

// Runs the job and ends the test where run() skipped it (no device) or failed it.
#define RUN_JOB(...)                              \
  do {                                            \
    run(__VA_ARGS__);                             \
    if (IsSkipped() || HasFatalFailure()) return; \
  } while (0)

TEST_P(Fidelity, Hdr10KeptForHevcAndToneMappedForH264) {
  RUN_JOB({in("hdr10.mp4"), "-o", out_ / "hevc.mkv", "--codec", "hevc", "-o", out_ / "hevc.mp4",
           "--codec", "hevc", "--size", "160x90", "-o", out_ / "h264.mp4"});
  for (const char* name : {"hevc.mkv", "hevc.mp4"}) {
    SCOPED_TRACE(name);
    expect_hdr10_kept(probe_video(out_ / name));
  }
  VideoProbe sdr = probe_video(out_ / "h264.mp4");
  expect_sdr_bt709(sdr);
  EXPECT_EQ(sdr.field("profile"), "High");
}

// AV1 (libsvtav1) carries HDR10 in its bitstream (metadata OBUs), not only on the stream: the
// decoder finds it on the frames.
TEST_P(Fidelity, Av1KeepsHdr10MetadataInTheBitstream) {
  RUN_JOB({in("hdr10.mp4"), out_ / "hdr.mkv", "--codec", "av1"});
  VideoProbe out = probe_video(out_ / "hdr.mkv");
  EXPECT_EQ(out.field("pix_fmt"), "yuv420p10le");
  EXPECT_EQ(out.field("color_transfer"), "smpte2084");
  VideoProbe frame_only{json::object(), out.frame};  // not the stream's (Matroska's)
  json mastering = frame_only.side_data("Mastering display metadata");
  ASSERT_FALSE(mastering.is_null()) << out.frame.dump();
  EXPECT_NEAR(ratio(mastering.value("max_luminance", "")), 1000, 1);
  EXPECT_NEAR(ratio(mastering.value("red_x", "")), 0.68, 0.001);
  json light = frame_only.side_data("Content light level metadata");
  ASSERT_FALSE(light.is_null()) << out.frame.dump();
  EXPECT_EQ(light.value("max_content", 0), 1000);
  EXPECT_EQ(light.value("max_average", 0), 400);
}

TEST_P(Fidelity, TonemapAskedForHevcIsSdr) {
  RUN_JOB({in("hdr10.mp4"), out_ / "hevc.mkv", "--codec", "hevc", "--hdr", "tonemap"});
  VideoProbe out = probe_video(out_ / "hevc.mkv");
  expect_sdr_bt709(out);
  EXPECT_EQ(out.field("profile"), "Main");
}

TEST_P(Fidelity, HlgKeptOrToneMapped) {
  RUN_JOB({in("hlg.mkv"), "-o", out_ / "hevc.mkv", "--codec", "hevc", "-o", out_ / "h264.mp4"});
  VideoProbe kept = probe_video(out_ / "hevc.mkv");
  EXPECT_EQ(kept.field("pix_fmt"), "yuv420p10le");
  EXPECT_EQ(kept.field("color_transfer"), "arib-std-b67");
  EXPECT_EQ(kept.field("color_primaries"), "bt2020");
  expect_sdr_bt709(probe_video(out_ / "h264.mp4"));
}

// zimg cannot convert from unset primaries or transfer: the plan assumes BT.2020's (what made
// the source wide) and SDR's, and the 8-bit output is SDR BT.709 like any other.
TEST_P(Fidelity, Bt2020TaggedWithItsMatrixAloneBecomesSdrBt709) {
  VideoProbe source = probe_video(in("bt2020_matrix_only.mkv"));
  ASSERT_EQ(source.field("color_space"), "bt2020nc");
  ASSERT_EQ(source.field("color_primaries"), "");
  RUN_JOB({in("bt2020_matrix_only.mkv"), out_ / "h264.mp4"});
  expect_sdr_bt709(probe_video(out_ / "h264.mp4"));
}

TEST_P(Fidelity, TenBitH264BecomesEightBitH264OrTenBitHevc) {
  RUN_JOB({in("h264_10bit.mp4"), "-o", out_ / "h264.mp4", "--size", "160x90", "-o",
           out_ / "hevc.mkv", "--codec", "hevc"});
  VideoProbe h264 = probe_video(out_ / "h264.mp4");
  EXPECT_EQ(h264.field("pix_fmt"), "yuv420p");
  EXPECT_EQ(h264.field("profile"), "High");
  VideoProbe hevc = probe_video(out_ / "hevc.mkv");
  EXPECT_EQ(hevc.field("pix_fmt"), "yuv420p10le");
  EXPECT_EQ(hevc.field("profile"), "Main 10");
}

TEST_P(Fidelity, ChromaKeptInSoftwareAndFourTwoZeroOnTheDevice) {
  bool software = GetParam() == "software";
  RUN_JOB({in("h264_422_10bit.mkv"), "-o", out_ / "422.mkv", "-o", out_ / "422.mkv.hevc.mkv",
           "--codec", "hevc"});
  EXPECT_EQ(probe_video(out_ / "422.mkv").field("pix_fmt"), software ? "yuv422p" : "yuv420p");
  EXPECT_EQ(probe_video(out_ / "422.mkv.hevc.mkv").field("pix_fmt"),
            software ? "yuv422p10le" : "yuv420p10le");
  RUN_JOB({in("h264_444.mkv"), "-o", out_ / "444.mkv", "-o", out_ / "444.mp4"});
  VideoProbe four = probe_video(out_ / "444.mkv");
  EXPECT_EQ(four.field("pix_fmt"), software ? "yuv444p" : "yuv420p");
  EXPECT_EQ(four.field("profile"), software ? "High 4:4:4 Predictive" : "High");
  // MP4 is for players (issue 38): 4:2:0 High on every backend.
  VideoProbe web = probe_video(out_ / "444.mp4");
  EXPECT_EQ(web.field("pix_fmt"), "yuv420p");
  EXPECT_EQ(web.field("profile"), "High");
}

TEST_P(Fidelity, InterlacedSourcesComeOutProgressive) {
  for (const char* input : {"mpeg2_interlaced.ts", "h264_interlaced.mp4"}) {
    SCOPED_TRACE(input);
    // The input is what we think: tagged top field first, and its pixels interlaced.
    EXPECT_EQ(probe_video(in(input)).field("field_order"), "tt");
    FieldCounts source = detect_fields(in(input));
    EXPECT_GT(source.interlaced, source.progressive);
    std::string output = out_ / (std::string(input) + ".mp4");
    RUN_JOB({in(input), output});
    EXPECT_EQ(probe_video(output).field("field_order"), "progressive");
    // The pixels, not only the tag: idet finds progressive frames where the source had fields.
    FieldCounts out = detect_fields(output);
    EXPECT_GT(out.progressive, 0);
    EXPECT_GT(out.progressive, 4 * out.interlaced) << "interlaced " << out.interlaced;
    ProcessResult plan =
        transcode({"run", in(input), output, "--backend", GetParam(), "--dry-run"});
    EXPECT_NE(plan.out.find("deinterlace: bwdif"), std::string::npos) << plan.out;
    EXPECT_NE(plan.out.find("source field order tt"), std::string::npos) << plan.out;
  }
}

// Scaler quality: a detailed (noisy) source's ladder, encoded losslessly so that only scaling
// counts, against the source scaled by the CPU (swscale bicubic, which the software backend
// uses: its own PSNR is ~100 dB). scale_vulkan is bilinear: one 3:1 step measured 31 dB, the
// cascade 39-41 dB; kScalerFloorDb holds the cascade.
constexpr double kScalerFloorDb = 36;

TEST(ScalerQuality, VulkanLadderHoldsItsFloor) {
  TempDir dir;
  std::string source = dir / "detailed.mkv";
  ProcessResult made =
      run_process({"ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                   "testsrc2=s=1920x1080:r=25:d=0.2", "-vf", "noise=alls=20:allf=t", "-c:v",
                   "libx264", "-qp", "0", "-preset", "ultrafast", source});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  ProcessResult ran =
      transcode({"run", source, "--backend", "vulkan", "-q", "--crf", "0", "-o", dir / "720.mkv",
                 "--size", "1280x720", "-o", dir / "360.mkv", "--size", "640x360"});
  if (ran.exit_code == kExitDevice) GTEST_SKIP() << "no vulkan device: " << ran.err;
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  for (const char* rung : {"720.mkv", "360.mkv"}) {
    double vulkan = psnr(dir / rung, source);
    RecordProperty(std::string("psnr_vulkan_") + rung, std::to_string(vulkan));
    EXPECT_GE(vulkan, kScalerFloorDb) << rung;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, Fidelity, ::testing::Values("software", "vulkan"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tc::testing
