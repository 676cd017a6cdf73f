// `transcode run --thumbnails`: the sprite sheets and the WebVTT index checked with the ffmpeg
// and ffprobe CLIs: the cues' count and times, every xywh inside its sheet (as ffprobe reads
// the JPEG), and each tile's brightness against the source's frame at the cue's start on a clip
// whose brightness rises with time; inside a package, and with nothing left by a cancel.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "service/common/exit_codes.h"
#include "tests/support/device_transfers.h"
#include "tests/support/media_tools.h"

namespace tc::testing {
namespace {

constexpr double kInterval = 2;
constexpr double kSeconds = 10;
// Luma of the ramp clip: 16 at 0 s, 20 more a second (two intervals apart differ by 80).
constexpr double kRampStart = 16;
constexpr double kRampPerSecond = 20;

struct Cue {
  double start = 0;
  double end = 0;
  std::string sheet;
  int x = 0, y = 0, w = 0, h = 0;
};

double vtt_seconds(const std::string& text) {  // "00:01:02.500"
  return std::stoi(text.substr(0, 2)) * 3600 + std::stoi(text.substr(3, 2)) * 60 +
         std::stod(text.substr(6));
}

std::vector<Cue> read_cues(const std::string& vtt) {
  std::vector<Cue> cues;
  std::regex time(R"((\d\d:\d\d:\d\d\.\d\d\d) --> (\d\d:\d\d:\d\d\.\d\d\d))");
  std::regex target(R"(^([^#]+)#xywh=(\d+),(\d+),(\d+),(\d+)$)");
  std::istringstream lines(vtt);
  std::string line;
  EXPECT_TRUE(std::getline(lines, line) && line == "WEBVTT") << vtt;
  while (std::getline(lines, line)) {
    std::smatch match;
    if (!std::regex_match(line, match, time)) continue;
    Cue cue{vtt_seconds(match[1]), vtt_seconds(match[2])};
    std::string uri;
    std::getline(lines, uri);
    EXPECT_TRUE(std::regex_match(uri, match, target)) << uri;
    if (match.size() == 6) {
      cue.sheet = match[1];
      cue.x = std::stoi(match[2]);
      cue.y = std::stoi(match[3]);
      cue.w = std::stoi(match[4]);
      cue.h = std::stoi(match[5]);
    }
    cues.push_back(cue);
  }
  return cues;
}

// The average luma (limited range, as the source's) of `input` after `filters`, from its frame
// at `at` seconds. The range is converted by name: FFmpeg 7.1 negotiates range apart from the
// pixel format, and format=yuv420p alone leaves a JPEG's full range as it is.
double mean_luma(const std::string& input, const std::string& filters, double at = 0) {
  ProcessResult run = run_process({"ffmpeg", "-v", "error", "-ss", std::to_string(at), "-i", input,
                                   "-frames:v", "1", "-vf",
                                   filters + (filters.empty() ? "" : ",") +
                                       "scale=out_range=tv,format=yuv420p,signalstats,"
                                       "metadata=mode=print:key=lavfi.signalstats.YAVG:file=-",
                                   "-f", "null", "-"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  size_t at_value = run.out.find("YAVG=");
  if (at_value == std::string::npos) return -1;
  return std::stod(run.out.substr(at_value + 5));
}

// A JPEG's width and height, as ffprobe reads them; 0x0 when it cannot.
std::pair<int, int> jpeg_size(const std::string& path) {
  std::optional<ProbeInfo> probed = ffprobe(path);
  EXPECT_TRUE(probed && probed->video) << path;
  if (!probed || !probed->video) return {0, 0};
  return {probed->video->width, probed->video->height};
}

class Thumbnails : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    shared_ = new TempDir();
    // A flat frame whose brightness rises with time: a tile's luma says which frame it is.
    std::string ramp = "color=c=black:s=320x180:r=25:d=" + std::to_string(int(kSeconds)) +
                       ",format=yuv420p,geq=lum='16+20*T':cb=128:cr=128";
    ProcessResult made =
        run_process({"ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", ramp, "-c:v", "libx264",
                     "-pix_fmt", "yuv420p", *shared_ / "ramp.mp4"});
    ASSERT_EQ(made.exit_code, 0) << made.err;
  }
  static void TearDownTestSuite() { delete shared_; }
  static std::string ramp() { return *shared_ / "ramp.mp4"; }

  // Checks the index in `dir` against its sheets and the source; returns the cues.
  std::vector<Cue> expect_thumbnails(const std::string& dir, int tile_width, int tile_height) {
    std::vector<Cue> cues = read_cues(read_file(dir + "/thumbnails.vtt"));
    EXPECT_EQ(cues.size(), size_t(kSeconds / kInterval));
    for (size_t i = 0; i < cues.size(); ++i) {
      const Cue& cue = cues[i];
      EXPECT_NEAR(cue.start, i * kInterval, 1e-3) << "cue " << i;
      EXPECT_NEAR(cue.end, std::min((i + 1) * kInterval, kSeconds), 1e-3) << "cue " << i;
      EXPECT_EQ(cue.w, tile_width);
      EXPECT_EQ(cue.h, tile_height);
      auto [sheet_width, sheet_height] = jpeg_size(dir + "/" + cue.sheet);
      EXPECT_LE(cue.x + cue.w, sheet_width) << cue.sheet << " cue " << i;
      EXPECT_LE(cue.y + cue.h, sheet_height) << cue.sheet << " cue " << i;
      // The tile is the source's frame at the cue's start.
      double tile = mean_luma(dir + "/" + cue.sheet,
                              "crop=" + std::to_string(cue.w) + ":" + std::to_string(cue.h) + ":" +
                                  std::to_string(cue.x) + ":" + std::to_string(cue.y));
      double source = mean_luma(ramp(), "", cue.start);
      EXPECT_NEAR(source, kRampStart + kRampPerSecond * cue.start, 2) << "cue " << i;
      EXPECT_NEAR(tile, source, 4) << "cue " << i << " at " << cue.start << " s";
    }
    return cues;
  }

  TempDir dir_;
  static TempDir* shared_;
};
TempDir* Thumbnails::shared_ = nullptr;

TEST_F(Thumbnails, BesideTheOutputSheetsAndAnIndexOfTheRightFrames) {
  ProcessResult run =
      transcode({"run", ramp(), dir_ / "out.mp4", "--size", "160x90", "--json", "--thumbnails", "2",
                 "--thumbnail-size", "64x0", "--thumbnail-grid", "2x2"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(dir_.entries(),
            (std::vector<std::string>{"out.mp4", "sheet_1.jpg", "sheet_2.jpg", "thumbnails.vtt"}));
  std::vector<Cue> cues = expect_thumbnails(dir_.path(), 64, 36);
  // 2x2 tiles a sheet: four on the first, the fifth alone on the second (one tile in size).
  ASSERT_EQ(cues.size(), 5u);
  EXPECT_EQ(cues[3].sheet, "sheet_1.jpg");
  EXPECT_EQ(cues[4].sheet, "sheet_2.jpg");
  EXPECT_EQ(jpeg_size(dir_ / "sheet_1.jpg"), std::pair(128, 72));
  EXPECT_EQ(jpeg_size(dir_ / "sheet_2.jpg"), std::pair(64, 36));
  // The report lists what was written.
  nlohmann::json report = nlohmann::json::parse(run.out)["thumbnails"];
  EXPECT_EQ(report["tiles"], cues.size());
  EXPECT_EQ(report["sheets"], (nlohmann::json{"sheet_1.jpg", "sheet_2.jpg"}));
  EXPECT_EQ(report["index"], dir_ / "thumbnails.vtt");
}

// A device backend for real (Mesa's lavapipe in CI): the tiles are chosen and scaled on the
// device, only they are downloaded, and they are the same frames.
TEST_F(Thumbnails, OnAVulkanDeviceTheSameFrames) {
  std::vector<std::string> args{
      "run",          ramp(), dir_ / "out.mp4",   "--backend", "vulkan", "--size", "160x90",
      "--thumbnails", "2",    "--thumbnail-size", "64x0"};
  args.push_back("--dry-run");
  ProcessResult plan = transcode(args);
  if (plan.exit_code == kExitDevice) GTEST_SKIP() << "no Vulkan device here: " << plan.err;
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  args.back() = "--json";
  args.insert(args.begin(), transcode_binary());
  TempDir scratch;
  Transfers transfers;
  ProcessResult run = run_counting_transfers(args, scratch, &transfers);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::vector<Cue> cues = expect_thumbnails(dir_.path(), 64, 36);
  // Counted outside the program: only the chosen tiles come down at the tile's size, and no
  // frame at the source's size.
  EXPECT_EQ(transfers.frames["down 64x36"], static_cast<int64_t>(cues.size())) << run.out;
  EXPECT_EQ(transfers.total("down"),
            transfers.frames["down 64x36"] + transfers.frames["down 160x90"]);
  nlohmann::json report = nlohmann::json::parse(run.out);
  std::string download_device;
  for (const auto& stage : report["stages"])
    if (stage["name"] == "download thumbnails") download_device = stage["device"];
  EXPECT_EQ(download_device.rfind("vulkan", 0), 0u) << run.out;
}

TEST_F(Thumbnails, InsideThePackagePublishedWithIt) {
  ProcessResult run =
      transcode({"run", ramp(), "--package", "hls", "--package-dir", dir_ / "pkg", "--segment", "2",
                 "--thumbnails", "2", "-o", "90p", "--size", "160x90"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(dir_.entries(), std::vector<std::string>{"pkg"});
  expect_thumbnails(dir_ / "pkg", 160, 90);
  EXPECT_TRUE(file_exists(dir_ / "pkg/sheet_1.jpg"));
  EXPECT_NE(run.out.find("thumbnails: 5 tiles of 160x90"), std::string::npos) << run.out;
}

TEST_F(Thumbnails, CancelLeavesNoPackageAndNoSheet) {
  make_clip(dir_ / "long.mp4", {.width = 640, .height = 360, .seconds = 20, .audio = false});
  // A sheet a tile: the first is written at once, into the package's partial directory.
  int exit_code = interrupt_once_written(
      {"run", dir_ / "long.mp4", "--package", "hls", "--package-dir", dir_ / "pkg",
       "--encoder-preset", "veryslow", "--thumbnails", "0.5", "--thumbnail-grid", "1x1", "-o", "a"},
      dir_ / ".pkg.partial/sheet_1.jpg");
  ASSERT_NE(exit_code, -1) << "no sheet was ever written";
  EXPECT_EQ(exit_code, kExitCancelled);
  EXPECT_EQ(dir_.entries(), std::vector<std::string>{"long.mp4"});
}

TEST_F(Thumbnails, CancelLeavesNoSheetBesideTheOutput) {
  make_clip(dir_ / "long.mp4", {.width = 640, .height = 360, .seconds = 20, .audio = false});
  int exit_code =
      interrupt_once_written({"run", dir_ / "long.mp4", dir_ / "out.mp4", "--encoder-preset",
                              "veryslow", "--thumbnails", "0.5", "--thumbnail-grid", "1x1"},
                             dir_ / ".sheet_1.jpg.partial");
  ASSERT_NE(exit_code, -1) << "no sheet was ever written";
  EXPECT_EQ(exit_code, kExitCancelled);
  EXPECT_EQ(dir_.entries(), std::vector<std::string>{"long.mp4"});
}

TEST_F(Thumbnails, BadOptionsExitTwoNamingTheOption) {
  struct Bad {
    std::vector<std::string> args;
    std::string says;
  };
  for (const Bad& bad : std::vector<Bad>{
           {{"--thumbnails", "0"}, "--thumbnails"},
           {{"--thumbnails", "-2"}, "--thumbnails"},
           {{"--thumbnails", "2", "--thumbnail-size", "640x0"}, "thumbnails.width"},
           {{"--thumbnails", "2:64x37"}, "--thumbnail-size"},
           {{"--thumbnails", "2", "--thumbnail-grid", "0x5"}, "--thumbnail-grid"},
           {{"--thumbnail-size", "64x0"}, "--thumbnails"},
       }) {
    std::vector<std::string> args{"run", ramp(), dir_ / "out.mp4"};
    args.insert(args.end(), bad.args.begin(), bad.args.end());
    ProcessResult run = transcode(args);
    EXPECT_EQ(run.exit_code, kExitUsage) << bad.says << ": " << run.err;
    EXPECT_NE(run.err.find(bad.says), std::string::npos) << run.err;
  }
  EXPECT_TRUE(dir_.entries().empty());
}

TEST_F(Thumbnails, DryRunShowsTheBranch) {
  ProcessResult run = transcode({"run", ramp(), dir_ / "out.mp4", "--dry-run", "--thumbnails", "5",
                                 "--thumbnail-size", "0x72"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("thumbnails: a 128x72 tile every 5 s"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("[thumbs]"), std::string::npos) << run.out;
  EXPECT_TRUE(dir_.entries().empty());
}

}  // namespace
}  // namespace tc::testing
