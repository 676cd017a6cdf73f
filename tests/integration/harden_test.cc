// Issue 10's findings at `transcode run`: trims and sizes past what can be done are usage errors
// naming the option, a bitrate in a job file means VBR as --bitrate does, and an input whose
// timestamps go backwards is converted as the ffmpeg CLI converts it.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>

#include "service/common/exit_codes.h"
#include "tests/support/media_tools.h"

namespace tc::testing {
namespace {

class HardenedRun : public ::testing::Test {
 protected:
  void SetUp() override { make_clip(input, {.seconds = 1}); }
  TempDir dir;
  std::string input = dir / "in.mp4";
};

// Before: --start 1e300 overflowed to a start of 0 (the whole input, exit 0); --duration 1e300
// failed as an input error.
TEST_F(HardenedRun, HugeTrimsAreUsageErrorsNamingTheOption) {
  for (const char* option : {"--start", "--duration"})
    for (const char* value : {"1e300", "inf", "nan", "10000001"}) {
      ProcessResult run = transcode({"run", input, dir / "out.mp4", option, value, "--quiet"});
      EXPECT_EQ(run.exit_code, kExitUsage) << option << " " << value << ": " << run.err;
      EXPECT_NE(run.err.find(option), std::string::npos) << run.err;
    }
  std::string job = dir / "job.json";
  std::ofstream(job) << nlohmann::json{{"input", input},
                                       {"start_s", 1e300},
                                       {"outputs", {{{"path", dir / "j.mp4"}}}}}
                            .dump();
  ProcessResult run = transcode({"run", "--job", job, "--quiet"});
  EXPECT_EQ(run.exit_code, kExitUsage) << run.err;
  EXPECT_NE(run.err.find("start_s"), std::string::npos) << run.err;
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"in.mp4", "job.json"}));
}

// Before: 2x100000 (within any pixel cap) failed as an internal error in the encoder.
TEST_F(HardenedRun, OverlongSidesAreUsageErrors) {
  ProcessResult run = transcode({"run", input, dir / "tall.mp4", "--size", "2x100000", "--quiet"});
  EXPECT_EQ(run.exit_code, kExitUsage) << run.err;
  EXPECT_NE(run.err.find("2x100000"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("16384"), std::string::npos) << run.err;
}

// Before: a job file's bitrate without rate_control was ignored (constant quality, no -b:v).
TEST_F(HardenedRun, JobFileBitrateMeansVbrAsTheCommandLineDoes) {
  std::string job = dir / "job.json";
  std::ofstream(job) << nlohmann::json{{"input", input},
                                       {"outputs",
                                        {{{"path", dir / "j.mp4"}, {"bitrate", 300000}}}}}
                            .dump();
  ProcessResult from_file = transcode({"run", "--job", job, "--dry-run"});
  ASSERT_EQ(from_file.exit_code, 0) << from_file.err;
  ProcessResult from_options =
      transcode({"run", input, dir / "j.mp4", "--bitrate", "300k", "--dry-run"});
  ASSERT_EQ(from_options.exit_code, 0) << from_options.err;
  EXPECT_NE(from_file.out.find("-b:v 300000 -maxrate 450000"), std::string::npos) << from_file.out;
  EXPECT_EQ(from_file.out, from_options.out);
}

// ---- an MPEG-TS whose video PES timestamps are rewritten in place, as a corrupt file has them.

uint64_t read_timestamp(const std::string& b, size_t at) {
  auto byte = [&](size_t i) {
    return static_cast<uint64_t>(static_cast<unsigned char>(b[at + i]));
  };
  return ((byte(0) >> 1) & 7) << 30 | byte(1) << 22 | (byte(2) >> 1) << 15 | byte(3) << 7 |
         (byte(4) >> 1);
}

void write_timestamp(std::string& b, size_t at, uint64_t value, int marker) {
  b[at] = static_cast<char>(marker << 4 | ((value >> 30) & 7) << 1 | 1);
  b[at + 1] = static_cast<char>((value >> 22) & 0xff);
  b[at + 2] = static_cast<char>(((value >> 15) & 0x7f) << 1 | 1);
  b[at + 3] = static_cast<char>((value >> 7) & 0xff);
  b[at + 4] = static_cast<char>((value & 0x7f) << 1 | 1);
}

// Offsets of the PTS fields of video PES headers that carry both PTS and DTS.
std::vector<size_t> video_pes_timestamps(const std::string& ts) {
  std::vector<size_t> offsets;
  for (size_t p = 0; p + 188 <= ts.size(); p += 188) {
    if (ts[p] != 0x47 || !(ts[p + 1] & 0x40)) continue;  // sync byte, payload unit start
    size_t at = p + 4;
    if (ts[p + 3] & 0x20) at += 1 + static_cast<unsigned char>(ts[p + 4]);  // adaptation field
    if (at + 19 > p + 188 || ts.compare(at, 4, std::string("\0\0\1\xe0", 4)) != 0) continue;
    if ((static_cast<unsigned char>(ts[at + 7]) >> 6) == 3) offsets.push_back(at + 9);
  }
  return offsets;
}

enum class Damage { kDtsGoesBack, kPtsBeforeDts };

// Every 10th video packet from the 10th gets a DTS 1/3 s back, or a PTS before its DTS.
std::string damaged_ts(const TempDir& dir, Damage damage) {
  std::string clean = dir / "clean.ts", broken = dir / "broken.ts";
  ProcessResult made = run_process({"ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i",
                                    "testsrc2=size=320x240:rate=30", "-t", "2", "-c:v", "libx264",
                                    "-preset", "ultrafast", "-bf", "2", "-f", "mpegts", clean});
  EXPECT_EQ(made.exit_code, 0) << made.err;
  std::string bytes = read_file(clean);
  std::vector<size_t> pes = video_pes_timestamps(bytes);
  EXPECT_GE(pes.size(), 40u);
  for (size_t i = 10; i < pes.size(); i += 10) {
    uint64_t dts = read_timestamp(bytes, pes[i] + 5);
    if (damage == Damage::kDtsGoesBack)
      write_timestamp(bytes, pes[i] + 5, dts - 30000, 1);
    else
      write_timestamp(bytes, pes[i], dts - 6000, 3);
  }
  std::ofstream(broken, std::ios::binary) << bytes;
  return broken;
}

// Before: exit 6, "output: writing ...: Invalid argument", where the ffmpeg CLI converts the file.
TEST_F(HardenedRun, InputTimestampsAreSanitisedBeforeTheMuxer) {
  for (Damage damage : {Damage::kDtsGoesBack, Damage::kPtsBeforeDts}) {
    SCOPED_TRACE(damage == Damage::kDtsGoesBack ? "dts goes back" : "pts before dts");
    std::string broken = damaged_ts(dir, damage);
    ProcessResult ffmpeg =
        run_process({"ffmpeg", "-v", "error", "-y", "-i", broken, "-c", "copy", dir / "ff.mp4"});
    ASSERT_EQ(ffmpeg.exit_code, 0) << ffmpeg.err;
    for (std::string codec : {"copy", "h264"}) {
      std::string out = dir / ("out_" + codec + ".mp4");
      ProcessResult run = transcode({"run", broken, out, "--codec", codec, "--quiet"});
      EXPECT_EQ(run.exit_code, kExitOk) << codec << ": " << run.err;
      std::optional<ProbeInfo> info = ffprobe(out);
      ASSERT_TRUE(info && info->video) << codec;
      EXPECT_EQ(info->video->frames, 60) << codec;
    }
  }
}

}  // namespace
}  // namespace tc::testing
