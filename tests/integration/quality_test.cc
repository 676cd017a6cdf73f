// `--quality psnr,ssim` (issue 11): each output measured against its source in the same run.
// The oracle is the ffmpeg CLI's psnr filter on the written file against the source scaled the
// same way (bicubic); our figure must agree with it on every backend that runs here.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "service/common/exit_codes.h"
#include "tests/support/media_tools.h"

namespace tc::testing {
namespace {

using nlohmann::json;

// How far our PSNR may be from the ffmpeg CLI's on the same file: both are swscale bicubic and
// the psnr filter; what is left is rounding of the per-frame MSE.
constexpr double kAgreementDb = 0.5;

// ffmpeg's "average" PSNR of `output` against `source` scaled bicubic to `size` ("W:H").
double oracle_psnr(const std::string& output, const std::string& source, const std::string& size) {
  ProcessResult measured =
      run_process({"ffmpeg", "-hide_banner", "-nostats", "-i", output, "-i", source, "-lavfi",
                   "[1:v]scale=" + size +
                       ":flags=bicubic,format=yuv420p[ref];"
                       "[0:v]format=yuv420p[out];[out][ref]psnr",
                   "-f", "null", "-"});
  std::smatch match;
  static const std::regex average("average:([0-9.]+)");
  if (!std::regex_search(measured.err, match, average)) return -1;
  return std::atof(match[1].str().c_str());
}

class Quality : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() {
    inputs_ = new TempDir();
    // Detail and motion, so that bitrate shows in the figure.
    ProcessResult made =
        run_process({"ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                     "testsrc2=s=640x360:r=25:d=1", "-vf", "noise=alls=12:allf=t", "-c:v",
                     "libx264", "-crf", "10", "-preset", "ultrafast", source()});
    ASSERT_EQ(made.exit_code, 0) << made.err;
  }
  static void TearDownTestSuite() { delete inputs_; }
  static std::string source() { return *inputs_ / "detailed.mkv"; }

  // The report of a --quality run on this test's backend; skips where it has no device here.
  json run_measured(std::vector<std::string> outputs) {
    std::vector<std::string> args{"run",    source(), "--quality", "psnr,ssim",
                                  "--json", "-q",     "--backend", GetParam()};
    args.insert(args.end(), outputs.begin(), outputs.end());
    ProcessResult ran = transcode(args);
    if (ran.exit_code == kExitDevice) {
      skipped_ = true;
      return json();
    }
    EXPECT_EQ(ran.exit_code, 0) << ran.err;
    return json::parse(ran.out, nullptr, false);
  }

  TempDir out_;
  bool skipped_ = false;
  static TempDir* inputs_;
};

TempDir* Quality::inputs_ = nullptr;

TEST_P(Quality, AgreesWithFfmpegAndFallsWithTheBitrate) {
  json report = run_measured({"-o", out_ / "low.mp4", "--size", "320x180", "--bitrate", "60k", "-o",
                              out_ / "high.mp4", "--size", "320x180", "--crf", "16"});
  if (skipped_) GTEST_SKIP() << "no " << GetParam() << " device";
  ASSERT_TRUE(report.is_object()) << report;
  ASSERT_EQ(report["outputs"].size(), 2u);
  std::vector<double> psnr, ssim;
  for (const json& output : report["outputs"]) {
    const json& quality = output["quality"];
    ASSERT_TRUE(quality.is_object()) << output;
    EXPECT_EQ(quality.value("frames", 0), output.value("frames", -1)) << output;
    double ours = quality.value("psnr_avg_db", -1.0);
    double ffmpeg = oracle_psnr(output["path"], source(), "320:180");
    RecordProperty("psnr_" + GetParam() + "_" +
                       output["path"].get<std::string>().substr(out_.path().size() + 1),
                   std::to_string(ours) + " (ffmpeg " + std::to_string(ffmpeg) + ")");
    EXPECT_GT(ffmpeg, 0);
    EXPECT_NEAR(ours, ffmpeg, kAgreementDb) << output;
    EXPECT_GT(quality.value("psnr_y_db", -1.0), 0) << output;
    double ssim_all = quality.value("ssim", -1.0);
    EXPECT_GT(ssim_all, 0) << output;
    EXPECT_LE(ssim_all, 1) << output;
    psnr.push_back(ours);
    ssim.push_back(ssim_all);
  }
  EXPECT_LT(psnr[0], psnr[1]) << "60k should measure worse than crf 16";
  EXPECT_LT(ssim[0], ssim[1]);
}

INSTANTIATE_TEST_SUITE_P(Backends, Quality, ::testing::Values("software", "vulkan", "cuda"),
                         [](const auto& info) { return info.param; });

TEST(QualityOption, OffByDefaultAndShownByDryRun) {
  TempDir dir;
  std::string source = dir / "in.mp4";
  make_clip(source, {.seconds = 0.4, .audio = false});
  ProcessResult plain = transcode({"run", source, dir / "plain.mp4", "--json", "-q"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  json report = json::parse(plain.out, nullptr, false);
  EXPECT_FALSE(report["outputs"][0].contains("quality")) << plain.out;

  ProcessResult dry = transcode({"run", source, "--quality", "psnr", "--dry-run", "-o",
                                 dir / "a.mp4", "-o", dir / "b.mkv", "--codec", "copy"});
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("measure out0: psnr of out0"), std::string::npos) << dry.out;
  EXPECT_EQ(dry.out.find("measure out1"), std::string::npos) << "a copy is not measured";

  ProcessResult only_ssim = transcode({"run", source, dir / "s.mp4", "--quality", "ssim", "-q"});
  ASSERT_EQ(only_ssim.exit_code, 0) << only_ssim.err;
  EXPECT_NE(only_ssim.out.find("quality: SSIM 0."), std::string::npos) << only_ssim.out;
  EXPECT_EQ(only_ssim.out.find("PSNR"), std::string::npos) << only_ssim.out;
}

TEST(QualityOption, UnknownMetricIsAUsageErrorNamingIt) {
  TempDir dir;
  ProcessResult ran = transcode({"run", dir / "in.mp4", dir / "out.mp4", "--quality", "vmaf"});
  EXPECT_EQ(ran.exit_code, kExitUsage);
  EXPECT_NE(ran.err.find("--quality"), std::string::npos) << ran.err;
  EXPECT_NE(ran.err.find("vmaf"), std::string::npos) << ran.err;
}

}  // namespace
}  // namespace tc::testing
