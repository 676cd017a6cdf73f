// `transcode run` end to end: real media made by ffmpeg, outputs checked by ffprobe and PSNR.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "service/common/exit_codes.h"
#include "tests/support/device_transfers.h"
#include "tests/support/media_tools.h"
#include "tests/support/source_version.h"

namespace tc::testing {
namespace {

constexpr double kMinPsnr = 30;

class TranscodeRun : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    shared_ = new TempDir();
    make_clip(*shared_ / "in.mp4", {.width = 640, .height = 360, .seconds = 2});
  }
  static void TearDownTestSuite() { delete shared_; }
  static std::string input() { return *shared_ / "in.mp4"; }

  // Checks one output as a user would: codec, size, frames, duration, audio, quality.
  void expect_output(const std::string& path, const std::string& codec, int width, int height,
                     int64_t frames, bool audio = true, const std::string& reference = "") {
    std::optional<ProbeInfo> info = ffprobe(path);
    ASSERT_TRUE(info.has_value()) << path << " is not readable media";
    ASSERT_TRUE(info->video.has_value()) << path;
    EXPECT_EQ(info->video->codec, codec) << path;
    EXPECT_EQ(info->video->width, width) << path;
    EXPECT_EQ(info->video->height, height) << path;
    EXPECT_EQ(info->video->frames, frames) << path;
    EXPECT_NEAR(info->video->duration_s, frames / 30.0, 0.1) << path;
    EXPECT_EQ(info->audio.has_value(), audio) << path;
    double quality = psnr(path, reference.empty() ? input() : reference);
    EXPECT_GE(quality, kMinPsnr) << path;
  }

  TempDir dir_;
  static TempDir* shared_;
};

TempDir* TranscodeRun::shared_ = nullptr;

TEST_F(TranscodeRun, SingleOutputWithReport) {
  ProcessResult run = transcode({"run", input(), dir_ / "out.mp4", "--size", "320x0", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  expect_output(dir_ / "out.mp4", "h264", 320, 180, 60);
  nlohmann::json report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report["frames_decoded"], 60);
  EXPECT_EQ(report["backend"], "software");
  EXPECT_GT(report["wall_s"].get<double>(), 0);
  EXPECT_GT(report["cpu_s"].get<double>(), 0);
  EXPECT_GT(report["speed"].get<double>(), 0);
  ASSERT_EQ(report["outputs"].size(), 1u);
  EXPECT_EQ(report["outputs"][0]["frames"], 60);
  struct stat info {};
  ASSERT_EQ(stat((dir_ / "out.mp4").c_str(), &info), 0);
  EXPECT_EQ(report["outputs"][0]["bytes"], info.st_size);
  EXPECT_GT(report["outputs"][0]["bitrate"].get<int64_t>(), 0);
  bool scale_on_cpu = false;
  for (const auto& stage : report["stages"])
    if (stage["name"] == "filter") scale_on_cpu = stage["device"] == "cpu";
  EXPECT_TRUE(scale_on_cpu) << report["stages"].dump();
  EXPECT_EQ(dir_.entries(), std::vector<std::string>{"out.mp4"});  // no partial file left
}

TEST_F(TranscodeRun, AudioCopyKeepsEveryPacket) {
  // AAC's first (priming) packet has a negative timestamp; copying must keep it.
  ProcessResult run = transcode({"run", input(), dir_ / "out.mkv", "--audio", "copy"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::optional<ProbeInfo> in = ffprobe(input());
  std::optional<ProbeInfo> out = ffprobe(dir_ / "out.mkv");
  ASSERT_TRUE(in && in->audio && out && out->audio);
  EXPECT_EQ(out->audio->codec, "aac");
  EXPECT_EQ(out->audio->packets, in->audio->packets);
  // Every packet the same bytes: framemd5's size and hash columns (the 5th and 6th; the
  // timestamps differ in base, and side data such as the source's skip samples follows).
  auto sizes_and_hashes = [](const std::string& path) {
    std::istringstream lines(packet_hashes(path, "0:a"));
    std::string kept;
    for (std::string line; std::getline(lines, line);) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream fields(line);
      std::string field;
      for (int column = 0; column < 6 && std::getline(fields, field, ','); ++column)
        if (column >= 4) kept += field;
      kept += "\n";
    }
    return kept;
  };
  std::string copied = sizes_and_hashes(dir_ / "out.mkv");
  EXPECT_FALSE(copied.empty());
  EXPECT_EQ(copied, sizes_and_hashes(input()));
}

TEST_F(TranscodeRun, LadderOfThreeFromOneDecode) {
  ProcessResult run =
      transcode({"run", input(), "--json", "-o", dir_ / "a.mp4", "-o", dir_ / "b.mkv", "--size",
                 "426x240", "--codec", "hevc", "-o", dir_ / "c.ts", "--size", "0x180"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  nlohmann::json report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report["frames_decoded"], 60);  // one decode fed all three
  ASSERT_EQ(report["outputs"].size(), 3u);
  expect_output(dir_ / "a.mp4", "h264", 640, 360, 60);
  expect_output(dir_ / "b.mkv", "hevc", 426, 240, 60);
  expect_output(dir_ / "c.ts", "h264", 320, 180, 60);
  EXPECT_EQ(ffprobe(dir_ / "b.mkv")->format, "matroska,webm");
  EXPECT_EQ(ffprobe(dir_ / "c.ts")->format, "mpegts");
}

TEST_F(TranscodeRun, OtherCodecsAndAudioModes) {
  ProcessResult run = transcode({"run",     input(), "--size",  "320x180", "-o", dir_ / "v.mkv",
                                 "--codec", "vp9",   "--audio", "aac",     "-o", dir_ / "a.mkv",
                                 "--codec", "av1",   "--audio", "none",    "-o", dir_ / "c.mp4",
                                 "--codec", "copy",  "--size",  "0x0"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  expect_output(dir_ / "v.mkv", "vp9", 320, 180, 60);
  expect_output(dir_ / "a.mkv", "av1", 320, 180, 60, /*audio=*/false);
  expect_output(dir_ / "c.mp4", "h264", 640, 360, 60);
}

TEST_F(TranscodeRun, BitrateModes) {
  ProcessResult run =
      transcode({"run", input(), "--size", "320x180", "-o", dir_ / "cbr.mp4", "--bitrate", "400k",
                 "--rc", "cbr", "-o", dir_ / "vbr.mp4", "--bitrate", "300k", "--json"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  nlohmann::json report = nlohmann::json::parse(run.out);
  for (int i = 0; i < 2; ++i) {
    // Video bitrate near the target; the reported figure includes the audio (~128 kb/s) too.
    double kbps = report["outputs"][i]["bitrate"].get<double>() / 1000;
    double target = i == 0 ? 400 : 300;
    EXPECT_GT(kbps, target * 0.5) << i;
    EXPECT_LT(kbps, target * 1.6 + 140) << i;
  }
}

TEST_F(TranscodeRun, TrimsStartAndDuration) {
  ProcessResult run = transcode({"run", input(), dir_ / "cut.mp4", "--start", "0.5", "--duration",
                                 "1", "--size", "320x180", "--audio", "aac"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  std::optional<ProbeInfo> info = ffprobe(dir_ / "cut.mp4");
  ASSERT_TRUE(info && info->video && info->audio);
  EXPECT_EQ(info->video->frames, 30);
  EXPECT_NEAR(info->video->duration_s, 1.0, 0.05);
  EXPECT_NEAR(info->audio->duration_s, 1.0, 0.1);
}

TEST_F(TranscodeRun, JobFileMatchesTheCommandLine) {
  std::string job = dir_ / "job.json";
  std::ofstream(job) << nlohmann::json{{"input", input()},
                                       {"outputs",
                                        {{{"path", dir_ / "j.mp4"},
                                          {"width", 320},
                                          {"height", 180},
                                          {"audio", "none"}}}}}
                            .dump();
  ProcessResult run = transcode({"run", "--job", job});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  expect_output(dir_ / "j.mp4", "h264", 320, 180, 60, /*audio=*/false);
}

TEST_F(TranscodeRun, DryRunPrintsPlanAndFfmpegCommandAndWritesNothing) {
  ProcessResult run = transcode({"run", input(), "-o", dir_ / "a.mp4", "-o", dir_ / "b.mp4",
                                 "--size", "320x180", "--dry-run"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("backend: software"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("video graph: [in]split=2"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("ffmpeg -hide_banner"), std::string::npos) << run.out;
  EXPECT_TRUE(dir_.entries().empty());
}

TEST_F(TranscodeRun, DryRunCommandIsARealFfmpegCommand) {
  ProcessResult plan =
      transcode({"run", input(), dir_ / "ff.mp4", "--size", "320x180", "--dry-run"});
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  std::string command = plan.out.substr(plan.out.find("ffmpeg -hide_banner"));
  command = command.substr(0, command.find('\n'));
  ProcessResult ran = run_process({"sh", "-c", command + " -loglevel error"});
  ASSERT_EQ(ran.exit_code, 0) << command << "\n" << ran.err;
  // ffmpeg's options follow the output: the -loglevel went last, ffmpeg takes it as trailing.
  expect_output(dir_ / "ff.mp4", "h264", 320, 180, 60);
}

TEST_F(TranscodeRun, VulkanScalesOnTheDevice) {
  ProcessResult probe = transcode(
      {"run", input(), dir_ / "vk.mp4", "--backend", "vulkan", "--size", "320x180", "--dry-run"});
  if (probe.exit_code == kExitDevice) GTEST_SKIP() << "no Vulkan device here: " << probe.err;
  ASSERT_EQ(probe.exit_code, 0) << probe.err;
  EXPECT_NE(probe.out.find("scale_vulkan=w=320:h=180"), std::string::npos) << probe.out;
  TempDir scratch;
  Transfers transfers;
  ProcessResult run = run_counting_transfers(
      {transcode_binary(), "run", input(), "--backend", "vulkan", "--json", "-o", dir_ / "vk.mp4",
       "--size", "320x180", "-o", dir_ / "vk2.mp4", "--size", "160x90"},
      scratch, &transfers);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  expect_output(dir_ / "vk.mp4", "h264", 320, 180, 60);
  expect_output(dir_ / "vk2.mp4", "h264", 160, 90, 60);
  // Counted outside the program: each source frame goes up once at the source's size, and
  // comes down only at the outputs' sizes, so the scaling happened on the device.
  EXPECT_EQ(transfers.frames, (std::map<std::string, int64_t>{
                                  {"up 640x360", 60}, {"down 320x180", 60}, {"down 160x90", 60}}));
  nlohmann::json report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report["backend"], "vulkan");
  std::string filter_device;
  for (const auto& stage : report["stages"])
    if (stage["name"] == "filter") filter_device = stage["device"];
  EXPECT_EQ(filter_device.rfind("vulkan", 0), 0u) << report["stages"].dump();
}

// The lowest per-frame PSNR (dB) of `output` against `reference` scaled by ffmpeg to `size`
// ("320:180"); -1 when ffmpeg could not measure it.
double worst_frame_psnr(const std::string& output, const std::string& reference,
                        const std::string& size) {
  ProcessResult measured =
      run_process({"ffmpeg", "-hide_banner", "-i", output, "-i", reference, "-lavfi",
                   "[1:v]scale=" + size + "[r];[0:v][r]psnr", "-f", "null", "-"});
  size_t at = measured.err.rfind(" min:");
  if (measured.exit_code != 0 || at == std::string::npos) return -1;
  return std::atof(measured.err.c_str() + at + 5);
}

// A ladder's outputs download their frames from the device themselves, on their own threads
// (plan/graphs.cc), where the ffmpeg CLI's graph runs hwdownload: the pixels must be the same.
// The check a user makes: the command --dry-run prints writes the same video, packet for packet.
// Except where the CLI itself is wrong: FFmpeg 7.1's ffmpeg (Debian 13) with Mesa's lavapipe
// hands back, now and then, a frame through hwupload -> hwdownload that is not the one uploaded
// (a bare round trip differs from its source in one run of two; in this ladder about 5 of 60
// frames come out near 21 dB, the rest near 38), differently on each run. Its packets are no
// oracle there; every frame of transcode's is held to the floor whatever the CLI does.
TEST_F(TranscodeRun, VulkanWritesWhatItsFfmpegCommandWrites) {
  auto ladder = [&](const std::string& prefix) {
    return std::vector<std::string>{"run",       input(),
                                    "--backend", "vulkan",
                                    "-o",        dir_ / (prefix + "a.mp4"),
                                    "--size",    "320x180",
                                    "-o",        dir_ / (prefix + "b.mp4"),
                                    "--size",    "160x90"};
  };
  std::vector<std::string> dry_run = ladder("ff_");
  dry_run.push_back("--dry-run");
  ProcessResult plan = transcode(dry_run);
  if (plan.exit_code == kExitDevice) GTEST_SKIP() << "no Vulkan device here: " << plan.err;
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_NE(plan.out.find("download out1: av_hwframe_transfer_data, on the output's thread"),
            std::string::npos)
      << plan.out;
  size_t command_at = plan.out.find("ffmpeg -hide_banner");
  ASSERT_NE(command_at, std::string::npos) << plan.out;
  std::string command = plan.out.substr(command_at, plan.out.find('\n', command_at) - command_at);
  TempDir scratch_cli, scratch_tc;
  Transfers cli_transfers, tc_transfers;
  ProcessResult cli = run_counting_transfers({"sh", "-c", command + " -loglevel error"},
                                             scratch_cli, &cli_transfers);
  ASSERT_EQ(cli.exit_code, 0) << command << ": " << cli.err;
  std::vector<std::string> ours = ladder("tc_");
  ours.insert(ours.begin(), transcode_binary());
  ProcessResult ran = run_counting_transfers(ours, scratch_tc, &tc_transfers);
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  // The same frames cross, at the same sizes, as counted outside both programs.
  EXPECT_EQ(tc_transfers.frames, cli_transfers.frames);
  EXPECT_EQ(tc_transfers.total("down"), 120);
  // The packets, not the stream headers: transcode's SPS also carries the colour tags it plans.
  auto packets = [](const std::string& path) {
    std::string hashes = packet_hashes(path, "0:v");
    size_t at = hashes.find("#stream#");
    return at == std::string::npos ? std::string() : hashes.substr(at);
  };
  for (const auto& [name, size] : {std::pair<std::string, std::string>{"a.mp4", "320:180"},
                                   std::pair<std::string, std::string>{"b.mp4", "160:90"}}) {
    std::string ours = packets(dir_ / ("tc_" + name));
    EXPECT_FALSE(ours.empty()) << name << ": no packets";
    EXPECT_GE(worst_frame_psnr(dir_ / ("tc_" + name), input(), size), kMinPsnr) << name;
    double cli_worst = worst_frame_psnr(dir_ / ("ff_" + name), input(), size);
    if (cli_worst < kMinPsnr) {
      RecordProperty("ffmpeg_cli_worst_frame_db_" + name, std::to_string(cli_worst));
      std::printf("%s: the ffmpeg CLI's own output has a frame at %.1f dB: not compared\n",
                  name.c_str(), cli_worst);
      continue;
    }
    EXPECT_EQ(ours, packets(dir_ / ("ff_" + name))) << name;
  }
}

// GOP chunks (--gop-parallel) of an output that downloads its frames: each chunk's encoder
// downloads the device frames it is given. Every frame arrives, in two chunks, at the quality of
// the source.
TEST_F(TranscodeRun, VulkanGopChunksDownloadTheirFrames) {
  ProcessResult run = transcode({"run", input(), dir_ / "vk.mp4", "--backend", "vulkan", "--size",
                                 "320x180", "--gop", "12", "--gop-parallel", "2", "--json"});
  if (run.exit_code == kExitDevice) GTEST_SKIP() << "no Vulkan device here: " << run.err;
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(nlohmann::json::parse(run.out)["outputs"][0]["chunks"], 2);  // 48 + 12 frames
  expect_output(dir_ / "vk.mp4", "h264", 320, 180, 60);
}

TEST_F(TranscodeRun, VaapiRunsWhereAnIntelGpuExists) {
  ProcessResult probe =
      transcode({"run", input(), dir_ / "va.mp4", "--backend", "vaapi", "--dry-run"});
  if (probe.exit_code == kExitDevice) GTEST_SKIP() << "no Intel render node: " << probe.err;
  ASSERT_EQ(probe.exit_code, 0) << probe.err;
  EXPECT_NE(probe.out.find("frames copied between device and memory: none"), std::string::npos);
  ProcessResult run = transcode({"run", input(), "--backend", "vaapi", "-o", dir_ / "a.mp4",
                                 "--size", "320x180", "-o", dir_ / "b.mp4", "--size", "160x90"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  expect_output(dir_ / "a.mp4", "h264", 320, 180, 60);
  expect_output(dir_ / "b.mp4", "h264", 160, 90, 60);
}

TEST_F(TranscodeRun, CancelLeavesNothingBehind) {
  make_clip(dir_ / "long.mp4", {.width = 640, .height = 360, .seconds = 20, .audio = false});
  // Interrupted as Ctrl-C would, once it is writing.
  int exit_code = interrupt_once_written(
      {"run", dir_ / "long.mp4", dir_ / "out.mp4", "--encoder-preset", "veryslow"},
      dir_ / ".out.mp4.partial");
  ASSERT_NE(exit_code, -1) << "the transcode never started writing";
  EXPECT_EQ(exit_code, kExitCancelled);
  EXPECT_EQ(dir_.entries(), std::vector<std::string>{"long.mp4"});
}

// Bad input: one clear line naming the file and the problem, a distinct exit code, nothing written.
struct BadCase {
  std::string name;
  std::function<std::vector<std::string>(const TempDir&, const std::string& input)> args;
  int exit_code;
  std::vector<std::string> says;
};

class BadInput : public TranscodeRun, public ::testing::WithParamInterface<BadCase> {};

TEST_P(BadInput, ClearErrorDistinctCodeNothingWritten) {
  const BadCase& bad = GetParam();
  std::vector<std::string> args = bad.args(dir_, input());
  std::vector<std::string> before = dir_.entries();
  args.insert(args.begin(), "run");
  ProcessResult run = transcode(args);
  EXPECT_EQ(run.exit_code, bad.exit_code) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << "not one line: " << run.err;
  for (const std::string& text : bad.says)
    EXPECT_NE(run.err.find(text), std::string::npos) << run.err;
  EXPECT_EQ(dir_.entries(), before) << "something was written";
}

std::string truncated_copy(const TempDir& dir, const std::string& input) {
  std::ifstream in(input, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return dir.file("cut.mp4", bytes.substr(0, bytes.size() / 2));
}

std::string audio_only(const TempDir& dir) {
  std::string path = dir / "sound.m4a";
  run_process({"ffmpeg", "-loglevel", "error", "-f", "lavfi", "-i", "sine", "-t", "1", path});
  return path;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BadInput,
    ::testing::Values(
        BadCase{"MissingFile",
                [](const TempDir& d, const std::string&) {
                  return std::vector<std::string>{d / "nope.mp4", d / "o.mp4"};
                },
                kExitInput,
                {"nope.mp4", "no such file"}},
        BadCase{"Directory",
                [](const TempDir& d, const std::string&) {
                  return std::vector<std::string>{d.path(), d / "o.mp4"};
                },
                kExitInput,
                {"is a directory"}},
        BadCase{"EmptyFile",
                [](const TempDir& d, const std::string&) {
                  return std::vector<std::string>{d.file("empty.mp4", ""), d / "o.mp4"};
                },
                kExitInput,
                {"empty.mp4", "empty (0 bytes)"}},
        BadCase{
            "TextNamedMp4",
            [](const TempDir& d, const std::string&) {
              return std::vector<std::string>{d.file("notes.mp4", "just some text\n"), d / "o.mp4"};
            },
            kExitInput,
            {"notes.mp4", "not a media file"}},
        BadCase{"TruncatedFile",
                [](const TempDir& d, const std::string& in) {
                  return std::vector<std::string>{truncated_copy(d, in), d / "o.mp4"};
                },
                kExitInput,
                {"cut.mp4", "truncated"}},
        BadCase{"NoVideoStream",
                [](const TempDir& d, const std::string&) {
                  return std::vector<std::string>{audio_only(d), d / "o.mp4"};
                },
                kExitInput,
                {"sound.m4a", "no video stream"}},
        BadCase{"UnknownCodec",
                [](const TempDir& d, const std::string& in) {
                  return std::vector<std::string>{in, d / "o.mp4", "--codec", "mpeg9"};
                },
                kExitUsage,
                {"--codec", "mpeg9"}},
        BadCase{"OddSize",
                [](const TempDir& d, const std::string& in) {
                  return std::vector<std::string>{in, d / "o.mp4", "--size", "321x240"};
                },
                kExitUsage,
                {"321x240", "even"}},
        BadCase{"UnwritableOutput",
                [](const TempDir& d, const std::string& in) {
                  return std::vector<std::string>{in, d / "missing-dir/o.mp4"};
                },
                kExitOutput,
                {"missing-dir", "does not exist"}},
        BadCase{"VaapiWithoutIntelGpu",
                [](const TempDir& d, const std::string& in) {
                  return std::vector<std::string>{in,      d / "o.mp4", "--backend",
                                                  "vaapi", "--device",  "/nonexistent/renderD128"};
                },
                kExitDevice,
                {"Intel GPU", "--backend auto would fall back to software"}},
        BadCase{"SecondOutputUnwritable",
                [](const TempDir& d, const std::string& in) {
                  return std::vector<std::string>{in, "-o", d / "fine.mp4", "-o",
                                                  d / "no/such/dir.mp4"};
                },
                kExitOutput,
                {"no/such"}}),
    [](const ::testing::TestParamInfo<BadCase>& info) { return info.param.name; });

// The command line itself (CLI11): what a user types and reads, no media needed.

// The subcommands `transcode --help` lists (so the checks below follow the binary's own table).
std::vector<std::string> listed_commands() {
  ProcessResult help = transcode({"--help"});
  std::vector<std::string> commands;
  std::istringstream lines(help.out);
  bool in_list = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("Subcommands:", 0) == 0)
      in_list = true;
    else if (in_list && line.empty())
      break;
    else if (in_list)
      commands.push_back(line.substr(2, line.find(' ', 2) - 2));
  }
  return commands;
}

// Runs the bash completion function on the words typed so far (the last one is being completed).
std::vector<std::string> bash_completions(const std::string& script,
                                          const std::vector<std::string>& words) {
  std::string command = "source '" + script + "' && COMP_WORDS=(";
  for (const std::string& word : words) command += " '" + word + "'";
  command += ") && COMP_CWORD=" + std::to_string(words.size() - 1) +
             " && _transcode; printf '%s\\n' \"${COMPREPLY[@]}\"";
  ProcessResult run = run_process({"bash", "-c", command});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  std::vector<std::string> found;
  std::istringstream lines(run.out);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) found.push_back(line);
  return found;
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// The version is the repository's VERSION file's (read here, not compiled in).
TEST(CommandLine, VersionNamesTheProjectAndFfmpegVersions) {
  ProcessResult run = transcode({"--version"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  ASSERT_FALSE(tc::test::source_version().empty());
  EXPECT_EQ(run.out.rfind("transcode " + tc::test::source_version() + " (FFmpeg ", 0), 0u)
      << run.out;
  EXPECT_NE(run.out.find("libavcodec "), std::string::npos) << run.out;
}

TEST(CommandLine, UnknownOptionIsAUsageErrorOnStderr) {
  for (std::vector<std::string> args :
       std::vector<std::vector<std::string>>{{"run", "in.mp4", "out.mp4", "--frobnicate"},
                                             {"run", "in.mp4", "out.mp4", "--frobnicate=1"},
                                             {"--frobnicate", "run"}}) {
    ProcessResult run = transcode(args);
    EXPECT_EQ(run.exit_code, kExitUsage) << args[0];
    EXPECT_NE(run.err.find("unknown option --frobnicate"), std::string::npos) << run.err;
    EXPECT_EQ(run.out, "");
  }
  ProcessResult none = transcode({});
  EXPECT_EQ(none.exit_code, kExitUsage);
  EXPECT_NE(none.err.find("Usage: transcode"), std::string::npos) << none.err;
  EXPECT_EQ(none.out, "");
}

TEST(CommandLine, HelpCommandPrintsTheCommandsOptions) {
  ProcessResult help = transcode({"help", "run"});
  ASSERT_EQ(help.exit_code, 0) << help.err;
  for (const char* option : {"Usage: transcode run", "-o,--output", "--size", "--codec",
                             "--bitrate", "--backend", "--job", "--dry-run"})
    EXPECT_NE(help.out.find(option), std::string::npos) << option << "\n" << help.out;
  EXPECT_EQ(transcode({"run", "--help"}).out, help.out);
  ProcessResult unknown = transcode({"help", "frobnicate"});
  EXPECT_EQ(unknown.exit_code, kExitUsage);
  EXPECT_NE(unknown.err.find("unknown command 'frobnicate'"), std::string::npos) << unknown.err;
}

// --key=value options run a job: the file written has the codec and size they asked for.
TEST_F(TranscodeRun, KeyEqualsValueWorksEndToEnd) {
  ProcessResult ran = transcode(
      {"run", input(), "--output=" + (dir_ / "a.mp4"), "--size=320x180", "--codec=hevc", "-q"});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  std::optional<ProbeInfo> out = ffprobe(dir_ / "a.mp4");
  ASSERT_TRUE(out.has_value() && out->video.has_value());
  EXPECT_EQ(out->video->codec, "hevc");
  EXPECT_EQ(out->video->width, 320);
  EXPECT_EQ(out->video->height, 180);
  EXPECT_GT(out->video->frames, 0);
}

TEST(CommandLine, BashCompletionNamesEveryCommandAndOption) {
  ProcessResult script = transcode({"completion", "bash"});
  ASSERT_EQ(script.exit_code, 0) << script.err;
  TempDir dir;
  std::string path = dir.file("transcode.bash", script.out);
  ProcessResult syntax = run_process({"bash", "-n", path});
  EXPECT_EQ(syntax.exit_code, 0) << syntax.err;

  std::vector<std::string> commands = listed_commands();
  ASSERT_TRUE(contains(commands, "run") && contains(commands, "completion")) << script.out;
  std::vector<std::string> first = bash_completions(path, {"transcode", ""});
  for (const std::string& command : commands) EXPECT_TRUE(contains(first, command)) << command;
  std::vector<std::string> options = bash_completions(path, {"transcode", "run", "in.mp4", "--"});
  for (const char* option : {"--size", "--codec", "--output", "--json", "--backend"})
    EXPECT_TRUE(contains(options, option)) << option;
  EXPECT_EQ(bash_completions(path, {"transcode", "run", "--si"}),
            std::vector<std::string>{"--size"});
  EXPECT_TRUE(contains(bash_completions(path, {"transcode", "help", "ru"}), "run"));
  // A value is not completed with options.
  EXPECT_TRUE(bash_completions(path, {"transcode", "run", "--codec", "--"}).empty());
}

TEST(CommandLine, ZshCompletionNamesEveryCommandAndOption) {
  ProcessResult script = transcode({"completion", "zsh"});
  ASSERT_EQ(script.exit_code, 0) << script.err;
  EXPECT_EQ(script.out.rfind("#compdef transcode\n", 0), 0u) << script.out;
  TempDir dir;
  ProcessResult syntax = run_process({"zsh", "-n", dir.file("_transcode", script.out)});
  EXPECT_EQ(syntax.exit_code, 0) << syntax.err;
  for (const std::string& command : listed_commands())
    EXPECT_NE(script.out.find("    '" + command + ":"), std::string::npos) << command;
  for (const char* spec : {"'*'--size='[", "'*'--codec='[", "'*'{-o+,--output=}'[", "--json'["})
    EXPECT_NE(script.out.find(spec), std::string::npos) << spec << "\n" << script.out;
  ProcessResult tcsh = transcode({"completion", "tcsh"});
  EXPECT_EQ(tcsh.exit_code, kExitUsage);
  EXPECT_NE(tcsh.err.find("bash zsh fish"), std::string::npos) << tcsh.err;
}

// `transcode completion SHELL` written to `dir`/`file`, and passed by the shell's own syntax
// check (`check`, then the file's path). Returns the path ("" when it failed).
std::string checked_completion(TempDir& dir, const std::string& shell, const std::string& file,
                               std::vector<std::string> check) {
  ProcessResult script = transcode({"completion", shell});
  EXPECT_EQ(script.exit_code, 0) << script.err;
  std::string path = dir.file(file, script.out);
  check.push_back(path);
  ProcessResult syntax = run_process(check);
  EXPECT_EQ(syntax.exit_code, 0) << syntax.err;
  return script.exit_code == 0 && syntax.exit_code == 0 ? path : "";
}

// Completion offers the values of options with a fixed set, the names the parser takes (issue
// 41): bash's function run by bash, zsh's _arguments specs checked by zsh, fish's `complete -C`.
TEST(CommandLine, BashCompletionOffersAnOptionsValues) {
  TempDir dir;
  std::string path = checked_completion(dir, "bash", "transcode.bash", {"bash", "-n"});
  ASSERT_FALSE(path.empty());
  using Words = std::vector<std::string>;
  EXPECT_EQ(bash_completions(path, {"transcode", "run", "in.mp4", "--codec", ""}),
            (Words{"h264", "hevc", "av1", "vp9", "copy"}));
  EXPECT_EQ(bash_completions(path, {"transcode", "submit", "--backend", "v"}),
            (Words{"vaapi", "vulkan"}));
  EXPECT_EQ(bash_completions(path, {"transcode", "run", "--container", ""}),
            (Words{"mp4", "mkv", "webm", "mpegts"}));
  EXPECT_EQ(bash_completions(path, {"transcode", "watch", "--progress", ""}),
            (Words{"bar", "json"}));
  // A free value (--fps N|N/D) offers nothing, files' options still offer files.
  EXPECT_TRUE(bash_completions(path, {"transcode", "run", "--fps", ""}).empty());
  EXPECT_EQ(bash_completions(path, {"transcode", "run", "--job", path.substr(0, path.size() - 2)}),
            Words{path});
}

TEST(CommandLine, ZshCompletionOffersAnOptionsValues) {
  TempDir dir;
  ASSERT_FALSE(checked_completion(dir, "zsh", "_transcode", {"zsh", "-n"}).empty());
  ProcessResult script = transcode({"completion", "zsh"});
  for (const char* spec : {":NAME:(h264 hevc av1 vp9 copy)'", ":NAME:(mp4 mkv webm mpegts)'",
                           ":NAME:(auto software vaapi vulkan cuda qsv)'", ":bar|json:(bar json)'"})
    EXPECT_NE(script.out.find(spec), std::string::npos) << spec << "\n" << script.out;
  EXPECT_EQ(script.out.find(":N|N/D:(N N/D)"), std::string::npos) << script.out;
}

// fish itself completes the command lines from the script.
std::vector<std::string> fish_completions(const std::string& script, const std::string& line) {
  ProcessResult run = run_process(
      {"fish", "--no-config", "-c", "source '" + script + "'; complete -C '" + line + "'"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  std::vector<std::string> found;
  std::istringstream lines(run.out);
  for (std::string text; std::getline(lines, text);)
    if (!text.empty()) found.push_back(text.substr(0, text.find('\t')));
  return found;
}

TEST(CommandLine, FishCompletionNamesCommandsOptionsAndValues) {
  TempDir dir;
  std::string path = checked_completion(dir, "fish", "transcode.fish", {"fish", "--no-execute"});
  ASSERT_FALSE(path.empty());
  std::vector<std::string> commands = fish_completions(path, "transcode ");
  for (const std::string& command : listed_commands())
    EXPECT_TRUE(contains(commands, command)) << command;
  std::vector<std::string> options = fish_completions(path, "transcode run in.mp4 --");
  for (const char* option : {"--size", "--codec", "--output", "--json", "--backend", "--progress"})
    EXPECT_TRUE(contains(options, option)) << option;
  EXPECT_EQ(fish_completions(path, "transcode run in.mp4 --codec "),
            (std::vector<std::string>{"h264", "hevc", "av1", "vp9", "copy"}));
  EXPECT_EQ(fish_completions(path, "transcode run --container m"),
            (std::vector<std::string>{"mp4", "mkv", "mpegts"}));
  EXPECT_TRUE(contains(fish_completions(path, "transcode completion "), "fish"));
}

// A command with subcommands (`transcode tenants create ...`) completes their names, then the
// chosen one's options; the subcommands are not offered as commands of their own.
TEST(CommandLine, CompletionKnowsTheSubcommandsOfTenants) {
  TempDir dir;
  std::string bash = checked_completion(dir, "bash", "transcode.bash", {"bash", "-n"});
  std::string fish = checked_completion(dir, "fish", "transcode.fish", {"fish", "--no-execute"});
  ASSERT_FALSE(checked_completion(dir, "zsh", "_transcode", {"zsh", "-n"}).empty());
  ASSERT_FALSE(bash.empty() || fish.empty());
  std::vector<std::string> subcommands = bash_completions(bash, {"transcode", "tenants", ""});
  std::vector<std::string> fish_subcommands = fish_completions(fish, "transcode tenants ");
  for (const char* name : {"create", "update", "list", "key-create", "key-revoke"}) {
    EXPECT_TRUE(contains(subcommands, name)) << name;
    EXPECT_TRUE(contains(fish_subcommands, name)) << name;
  }
  EXPECT_FALSE(contains(bash_completions(bash, {"transcode", ""}), "key-create"));
  EXPECT_FALSE(contains(fish_completions(fish, "transcode "), "key-create"));
  std::vector<std::string> create =
      bash_completions(bash, {"transcode", "tenants", "create", "--"});
  for (const char* option : {"--media-root", "--weight", "--max-queued", "--max-running",
                             "--engine-seconds-per-day", "--admin", "--server", "--token-file"})
    EXPECT_TRUE(contains(create, option)) << option;
  std::vector<std::string> update =
      bash_completions(bash, {"transcode", "tenants", "update", "--"});
  for (const char* option : {"--weight", "--max-queued", "--max-running",
                             "--engine-seconds-per-day", "--json", "--server"})
    EXPECT_TRUE(contains(update, option)) << option;
  EXPECT_FALSE(contains(update, "--media-root")) << "update changes the limits alone";
  EXPECT_EQ(bash_completions(bash, {"transcode", "tenants", "key-revoke", "--tok"}),
            std::vector<std::string>{"--token-file"});
  EXPECT_TRUE(contains(fish_completions(fish, "transcode tenants create --"), "--media-root"));
  EXPECT_FALSE(contains(fish_completions(fish, "transcode tenants list --"), "--media-root"));
  ProcessResult zsh = transcode({"completion", "zsh"});
  EXPECT_NE(zsh.out.find("    'tenants create')"), std::string::npos) << zsh.out;
  EXPECT_NE(zsh.out.find(":SUBCOMMAND:(create update list key-create key-revoke"),
            std::string::npos)
      << zsh.out;
}

// Planning for an Intel GPU that is not here (issue 14).
TEST_F(TranscodeRun, DryRunPlansForAnAssumedIntelGpu) {
  ProcessResult run = transcode(
      {"run", input(), dir_ / "a.mp4", "--size", "320x180", "--dry-run", "--assume-device", "arc"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("assumed device: Alchemist DG2"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("-c:v h264_vaapi -low_power 1"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("frames copied between device and memory: none"), std::string::npos);
  EXPECT_TRUE(dir_.entries().empty());
}

TEST_F(TranscodeRun, AssumedDeviceRefusesABitrateModeItsEncoderLacks) {
  ProcessResult run = transcode({"run", input(), dir_ / "a.mp4", "--rc", "cbr", "--bitrate", "2M",
                                 "--dry-run", "--assume-device", "ehl"});
  EXPECT_EQ(run.exit_code, kExitUnsupported) << run.out;
  EXPECT_NE(run.err.find("enable_guc=2"), std::string::npos) << run.err;
  ProcessResult with_huc = transcode({"run", input(), dir_ / "a.mp4", "--rc", "cbr", "--bitrate",
                                      "2M", "--dry-run", "--assume-device", "ehl:huc"});
  EXPECT_EQ(with_huc.exit_code, 0) << with_huc.err;
}

TEST_F(TranscodeRun, AssumedDeviceOnlyPlans) {
  ProcessResult run = transcode({"run", input(), dir_ / "a.mp4", "--assume-device", "tgl"});
  EXPECT_EQ(run.exit_code, kExitUsage);
  EXPECT_NE(run.err.find("--dry-run"), std::string::npos) << run.err;
  ProcessResult unknown =
      transcode({"run", input(), dir_ / "a.mp4", "--dry-run", "--assume-device", "gen42"});
  EXPECT_EQ(unknown.exit_code, kExitUsage);
  EXPECT_NE(unknown.err.find("known: bdw, skl"), std::string::npos) << unknown.err;
  EXPECT_TRUE(dir_.entries().empty());
}

TEST(CommandLine, CapsProfilesListsTheIntelGenerationsWithoutADaemon) {
  ProcessResult caps = transcode({"caps", "--profiles", "--server", "127.0.0.1:1"});
  ASSERT_EQ(caps.exit_code, 0) << caps.err;
  for (const char* key : {"bdw ", "skl ", "bxt ", "kbl ", "icl ", "ehl ", "tgl ", "dg1 ", "dg2 ",
                          "mtl ", "lnl ", "bmg "})
    EXPECT_NE(caps.out.find(key), std::string::npos) << key << "\n" << caps.out;
  ProcessResult json = transcode({"caps", "--profiles", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(nlohmann::json::parse(json.out).size(), 12u);
}

}  // namespace
}  // namespace tc::testing
