// Video that players take (issue 38): a phone's rotation turned into upright pixels, 4:2:0 in
// packages and MP4 files, HEVC in MP4 tagged hvc1, interlaced fields kept when not
// deinterlaced, and --fps. Sources from the corpus or the ffmpeg CLI; ffprobe is the oracle.
#include <gtest/gtest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "service/common/exit_codes.h"
#include "tests/support/corpus.h"
#include "tests/support/media_tools.h"

namespace tc::testing {
namespace {

using nlohmann::json;

// ffprobe's first video stream of `path` (a file or a playlist), with its side data.
json video_stream(const std::string& path) {
  ProcessResult probed = run_process(
      {"ffprobe", "-v", "error", "-select_streams", "v:0", "-show_streams", "-of", "json", path});
  EXPECT_EQ(probed.exit_code, 0) << probed.err;
  json root = json::parse(probed.out, nullptr, false);
  if (root.is_discarded() || root["streams"].empty()) return json::object();
  return root["streams"][0];
}

// The display matrix's rotation in degrees (ffprobe's "rotation"); 0 without one.
int rotation_of(const json& stream) {
  for (const json& side : stream.value("side_data_list", json::array()))
    if (side.value("side_data_type", "") == "Display Matrix") return side.value("rotation", 0);
  return 0;
}

// "720x1280": the stored size.
std::string stored_size(const json& stream) {
  return std::to_string(stream.value("width", 0)) + "x" + std::to_string(stream.value("height", 0));
}

// What a player shows: the stored size, its sides swapped by a quarter-turn matrix.
std::string displayed_size(const json& stream) {
  bool quarter = std::abs(rotation_of(stream)) % 180 == 90;
  int width = stream.value("width", 0), height = stream.value("height", 0);
  return quarter ? std::to_string(height) + "x" + std::to_string(width) : stored_size(stream);
}

std::string field(const json& stream, const char* key) {
  return stream.value(key, "");
}

void run_ok(std::vector<std::string> args) {
  args.insert(args.begin(), "run");
  args.push_back("-q");
  ProcessResult ran = transcode(args);
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
}

void make(const std::vector<std::string>& args) {
  std::vector<std::string> argv{"ffmpeg", "-hide_banner", "-loglevel", "error", "-y"};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessResult made = run_process(argv);
  ASSERT_EQ(made.exit_code, 0) << made.err;
}

TEST(VideoFormat, APhoneClipIsTurnedUprightWhereverItGoes) {
  TempDir dir;
  std::string phone = dir / "phone.mp4";
  corpus::phone_rotated_vfr(phone, 90);
  ASSERT_EQ(stored_size(video_stream(phone)), "1280x720");
  ASSERT_EQ(displayed_size(video_stream(phone)), "720x1280");

  ASSERT_NO_FATAL_FAILURE(run_ok({phone, "-o", dir / "full.mkv", "-o", dir / "small.mkv", "--size",
                                  "360x640", "-o", dir / "out.mp4"}));
  // Matroska cannot hold the matrix: the pixels are upright, and --size is the displayed size.
  json full = video_stream(dir / "full.mkv");
  EXPECT_EQ(stored_size(full), "720x1280");
  EXPECT_EQ(rotation_of(full), 0);
  // The pixels themselves: against the source as ffmpeg shows it (turned by its matrix), not
  // only the tags; a frame scaled to portrait without turning scores far below.
  EXPECT_GE(psnr(dir / "full.mkv", phone), 30.0);
  EXPECT_GE(psnr(dir / "out.mp4", phone), 30.0);
  json small = video_stream(dir / "small.mkv");
  EXPECT_EQ(stored_size(small), "360x640");
  EXPECT_EQ(rotation_of(small), 0);
  // MP4 shows portrait too (upright pixels, no matrix to turn them again).
  EXPECT_EQ(displayed_size(video_stream(dir / "out.mp4")), "720x1280");
  EXPECT_EQ(rotation_of(video_stream(dir / "out.mp4")), 0);
  // A copy cannot turn its pixels: it keeps the matrix (MP4 holds it).
  ASSERT_NO_FATAL_FAILURE(run_ok({phone, dir / "copy.mp4", "--codec", "copy"}));
  EXPECT_EQ(displayed_size(video_stream(dir / "copy.mp4")), "720x1280");

  ASSERT_NO_FATAL_FAILURE(run_ok({phone, "-o", "full", "-o", "small", "--size", "360x640",
                                  "--package", "hls", "--package-dir", dir / "pkg"}));
  json rendition = video_stream(dir / "pkg/full/index.m3u8");
  EXPECT_EQ(stored_size(rendition), "720x1280");
  EXPECT_EQ(rotation_of(rendition), 0);
  EXPECT_EQ(stored_size(video_stream(dir / "pkg/small/index.m3u8")), "360x640");
  std::string master = read_file(dir / "pkg/master.m3u8");
  EXPECT_NE(master.find("RESOLUTION=720x1280"), std::string::npos) << master;
}

TEST(VideoFormat, MezzaninesBecomeFourTwoZeroForPlayers) {
  for (const char* pix_fmt : {"yuv422p10le", "yuv444p10le"}) {
    SCOPED_TRACE(pix_fmt);
    TempDir dir;
    std::string mezzanine = dir / "mezzanine.mov";
    corpus::mezzanine_10bit(mezzanine, pix_fmt);
    ASSERT_NO_FATAL_FAILURE(
        run_ok({mezzanine, "--size", "320x180", "-o", "h264", "-o", "hevc", "--codec", "hevc",
                "--package", "hls", "--package-dir", dir / "pkg"}));
    json h264 = video_stream(dir / "pkg/h264/index.m3u8");
    EXPECT_EQ(field(h264, "profile"), "High");
    EXPECT_EQ(field(h264, "pix_fmt"), "yuv420p");
    json hevc = video_stream(dir / "pkg/hevc/index.m3u8");
    EXPECT_EQ(field(hevc, "profile"), "Main 10");
    EXPECT_EQ(field(hevc, "pix_fmt"), "yuv420p10le");
    std::string master = read_file(dir / "pkg/master.m3u8");
    EXPECT_NE(master.find("avc1.6400"), std::string::npos) << master;  // High, not 7a (4:2:2)

    // An MP4 file is for players too; Matroska keeps the mezzanine's chroma.
    ASSERT_NO_FATAL_FAILURE(
        run_ok({mezzanine, "--size", "320x180", "-o", dir / "web.mp4", "-o", dir / "archive.mkv"}));
    json web = video_stream(dir / "web.mp4");
    EXPECT_EQ(field(web, "profile"), "High");
    EXPECT_EQ(field(web, "pix_fmt"), "yuv420p");
    EXPECT_NE(field(video_stream(dir / "archive.mkv"), "pix_fmt"), "yuv420p");
  }
}

TEST(VideoFormat, HevcInMp4IsTaggedHvc1EncodedOrCopied) {
  TempDir dir;
  make({"-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=1", "-c:v", "libx265", "-x265-params",
        "log-level=error", "-tag:v", "hvc1", dir / "hvc1.mp4"});
  ASSERT_EQ(field(video_stream(dir / "hvc1.mp4"), "codec_tag_string"), "hvc1");
  ASSERT_NO_FATAL_FAILURE(run_ok({dir / "hvc1.mp4", "-o", dir / "encoded.mp4", "--codec", "hevc",
                                  "-o", dir / "copied.mp4", "--codec", "copy"}));
  EXPECT_EQ(field(video_stream(dir / "encoded.mp4"), "codec_tag_string"), "hvc1");
  EXPECT_EQ(field(video_stream(dir / "copied.mp4"), "codec_tag_string"), "hvc1");
}

// Top field first in H.264 (MBAFF, as a broadcast encoder writes it), bottom first in MPEG-2
// (PAL DVD material). Matroska stores the order; FFmpeg's mp4 muxer writes no 'fiel' box, so an
// MP4's order is what ffprobe reads from the H.264 bitstream (checked on the top-first source).
TEST(VideoFormat, DeinterlaceOffKeepsTheFieldOrder) {
  TempDir dir;
  struct Source {
    const char* name;
    const char* scan;
    const char* codec;
    const char* top;
    const char* order;
    bool mp4 = false;
  };
  for (const Source& source : {Source{"tt.mp4", "tff", "libx264", "1", "tt", true},
                               Source{"bb.ts", "bff", "mpeg2video", "0", "bb"}}) {
    SCOPED_TRACE(source.name);
    std::string input = dir / source.name;
    make({"-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=1", "-vf",
          std::string("interlace=scan=") + source.scan, "-c:v", source.codec, "-flags",
          "+ildct+ilme", "-top", source.top, input});
    ASSERT_EQ(field(video_stream(input), "field_order"), source.order);
    std::vector<std::string> args{input, "--deinterlace", "off", "-o", input + ".mkv"};
    if (source.mp4) args.insert(args.end(), {"-o", input + ".mp4"});
    ASSERT_NO_FATAL_FAILURE(run_ok(args));
    EXPECT_EQ(field(video_stream(input + ".mkv"), "field_order"), source.order);
    if (source.mp4) {
      EXPECT_EQ(field(video_stream(input + ".mp4"), "field_order"), source.order);
    }
  }
}

// Frames counted by decoding, and the stream's duration.
std::pair<int, double> frames_and_duration(const std::string& path) {
  ProcessResult probed = run_process(
      {"ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
       "stream=nb_read_frames,r_frame_rate:format=duration", "-of", "json", path});
  json root = json::parse(probed.out, nullptr, false);
  if (root.is_discarded() || root["streams"].empty()) return {-1, -1};
  return {std::stoi(root["streams"][0].value("nb_read_frames", "-1")),
          std::stod(root["format"].value("duration", "-1"))};
}

TEST(VideoFormat, FpsDropsFramesToTheRateAndKeepsTheDuration) {
  TempDir dir;
  make({"-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=2", "-c:v", "libx264", dir / "30.mp4"});
  ASSERT_NO_FATAL_FAILURE(run_ok({dir / "30.mp4", dir / "25.mp4", "--fps", "25"}));
  EXPECT_EQ(field(video_stream(dir / "25.mp4"), "r_frame_rate"), "25/1");
  auto [frames, duration] = frames_and_duration(dir / "25.mp4");
  EXPECT_EQ(frames, 50);
  EXPECT_NEAR(duration, 2.0, 0.001);

  // The same from a job file: "fps" as N/D.
  std::string job =
      dir.file("job.json", R"({"input": ")" + dir / "30.mp4" + R"(", "outputs": [{"path": ")" +
                               dir / "24.mkv" + R"(", "fps": "24000/1001"}]})");
  ASSERT_NO_FATAL_FAILURE(run_ok({"--job", job}));
  EXPECT_EQ(field(video_stream(dir / "24.mkv"), "r_frame_rate"), "24000/1001");
  EXPECT_EQ(frames_and_duration(dir / "24.mkv").first, 48);
}

TEST(VideoFormat, FpsRefusesWhatIsNotARate) {
  TempDir dir;
  for (const char* rate : {"0", "25x", "1/0", "5000"}) {
    ProcessResult ran = transcode({"run", "in.mp4", dir / "out.mkv", "--fps", rate});
    EXPECT_EQ(ran.exit_code, kExitUsage) << rate;
    EXPECT_NE(ran.err.find("--fps: frame rate"), std::string::npos) << ran.err;
  }
}

}  // namespace
}  // namespace tc::testing
