#include "service/cli/job_args.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <tuple>

namespace tc::cli {
namespace {

Result<JobArgs> parse(std::vector<std::string> args) {
  return parse_job_args(args);
}

TEST(JobArgs, InputOutputAndOptions) {
  Result<JobArgs> args =
      parse({"in.mp4", "out.mkv", "--size", "1280x720", "--codec", "hevc", "--crf", "28", "--audio",
             "none", "--json", "--start=2", "--audio-tracks", "eng,fra", "--subtitles", "none"});
  ASSERT_TRUE(args.is_ok()) << args.status().to_string();
  const JobSpec& spec = args->spec;
  EXPECT_EQ(spec.input, "in.mp4");
  ASSERT_EQ(spec.outputs.size(), 1u);
  EXPECT_EQ(spec.outputs[0].path, "out.mkv");
  EXPECT_EQ(spec.outputs[0].width, 1280);
  EXPECT_EQ(spec.outputs[0].codec, VideoCodec::kHevc);
  EXPECT_EQ(spec.outputs[0].quality, 28);
  EXPECT_EQ(spec.outputs[0].rate_control, RateControl::kQuality);
  EXPECT_EQ(spec.outputs[0].audio, AudioMode::kNone);
  EXPECT_EQ(name_of(spec.outputs[0].audio_tracks), "eng,fra");
  EXPECT_EQ(spec.outputs[0].subtitles, SubtitleMode::kNone);
  EXPECT_EQ(spec.start_s, 2);
  EXPECT_TRUE(args->json);
}

TEST(JobArgs, HdrPerOutputAndDeinterlacePerJob) {
  Result<JobArgs> args = parse({"in.mp4", "--hdr", "tonemap", "-o", "a.mkv", "--codec", "hevc",
                                "--hdr", "keep", "-o", "b.mp4", "--deinterlace", "off"});
  ASSERT_TRUE(args.is_ok()) << args.status().to_string();
  EXPECT_EQ(args->spec.outputs[0].hdr, HdrMode::kKeep);
  EXPECT_EQ(args->spec.outputs[1].hdr, HdrMode::kTonemap);
  EXPECT_EQ(args->spec.deinterlace, Deinterlace::kOff);
  Result<JobArgs> bad = parse({"in.mp4", "out.mp4", "--deinterlace", "maybe"});
  ASSERT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.status().message().rfind("--deinterlace:", 0), 0u) << bad.status().message();
}

TEST(JobArgs, OptionsBeforeTheFirstOutputApplyToAll) {
  Result<JobArgs> args =
      parse({"in.mp4", "--encoder-preset", "fast", "--codec", "hevc", "-o", "a.mp4", "-o", "b.mp4",
             "--size", "640x360", "--codec", "h264", "-o", "c.ts", "--bitrate", "1M"});
  ASSERT_TRUE(args.is_ok()) << args.status().to_string();
  const auto& outputs = args->spec.outputs;
  ASSERT_EQ(outputs.size(), 3u);
  EXPECT_EQ(outputs[0].codec, VideoCodec::kHevc);
  EXPECT_EQ(outputs[0].width, 0);
  EXPECT_EQ(outputs[1].codec, VideoCodec::kH264);  // its own option wins
  EXPECT_EQ(outputs[1].width, 640);
  EXPECT_EQ(outputs[2].rate_control, RateControl::kVbr);
  EXPECT_EQ(outputs[2].bitrate, 1'000'000);
  for (const OutputSpec& output : outputs) EXPECT_EQ(output.preset, "fast");
}

TEST(JobArgs, EveryOptionTakesKeyEqualsValue) {
  Result<JobArgs> args =
      parse({"in.mp4", "--codec=hevc", "-o", "a.mp4", "--output=b.mp4", "--size=640x360",
             "--bitrate=800k", "--backend=software", "--duration=1.5"});
  ASSERT_TRUE(args.is_ok()) << args.status().to_string();
  const auto& outputs = args->spec.outputs;
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_EQ(outputs[1].path, "b.mp4");
  EXPECT_EQ(outputs[1].width, 640);
  EXPECT_EQ(outputs[1].bitrate, 800'000);
  EXPECT_EQ(outputs[0].width, 0);  // --size came after b.mp4's -o: b's alone
  for (const OutputSpec& output : outputs) EXPECT_EQ(output.codec, VideoCodec::kHevc);
  EXPECT_EQ(args->spec.backend, BackendKind::kSoftware);
  EXPECT_EQ(args->spec.duration_s, 1.5);
}

// Job options apply to the job wherever they stand, after the last -o too (tests/gpu/run
// appends --quiet --json to a ladder).
TEST(JobArgs, JobOptionsAfterTheLastOutputApplyToTheJob) {
  Result<JobArgs> args = parse({"in.mp4", "-o", "a.mp4", "-o", "b.mp4", "--size", "640x360",
                                "--quiet", "--json", "--backend", "software"});
  ASSERT_TRUE(args.is_ok()) << args.status().to_string();
  EXPECT_TRUE(args->quiet);
  EXPECT_TRUE(args->json);
  EXPECT_EQ(args->spec.backend, BackendKind::kSoftware);
  EXPECT_EQ(args->spec.outputs[0].width, 0);
  EXPECT_EQ(args->spec.outputs[1].width, 640);
}

TEST(JobArgs, UnknownOptionSaysSo) {
  Result<JobArgs> parsed = parse({"in.mp4", "out.mp4", "--frobnicate=3"});
  ASSERT_FALSE(parsed.is_ok());
  EXPECT_EQ(parsed.status().code(), Code::kInvalidArgument);
  EXPECT_NE(parsed.status().message().find("unknown option --frobnicate"), std::string::npos)
      << parsed.status().message();
}

TEST(JobArgs, ErrorsNameTheOption) {
  for (auto [args, needle] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"in.mp4", "out.mp4", "--codec", "mpeg9"}, "--codec"},
           {{"in.mp4", "out.mp4", "--size", "big"}, "--size"},
           {{"in.mp4", "out.mp4", "--crf", "x"}, "--crf"},
           {{"in.mp4", "out.mp4", "--frobnicate"}, "--frobnicate"},
           {{"in.mp4", "out.mp4", "--size"}, "needs a value"},
           {{"in.mp4", "out.mp4", "--gop-parallel", "17"}, "--gop-parallel"},
           {{"in.mp4"}, "OUTPUT"},
           {{}, "INPUT"},
           {{"in.mp4", "a.mp4", "b.mp4"}, "b.mp4"},
       }) {
    Result<JobArgs> parsed = parse(args);
    ASSERT_FALSE(parsed.is_ok()) << needle;
    EXPECT_EQ(parsed.status().code(), Code::kInvalidArgument);
    EXPECT_NE(parsed.status().message().find(needle), std::string::npos)
        << parsed.status().message();
  }
}

// --gop-parallel is the job's (transcode submit sends it): 0 unless given.
TEST(JobArgs, GopParallelIsTheJobs) {
  Result<JobArgs> plain = parse({"in.mp4", "out.mp4"});
  ASSERT_TRUE(plain.is_ok()) << plain.status().to_string();
  EXPECT_EQ(plain->spec.gop_parallel, 0);
  Result<JobArgs> two = parse({"in.mp4", "-o", "a.mp4", "-o", "b.mp4", "--gop-parallel", "2"});
  ASSERT_TRUE(two.is_ok()) << two.status().to_string();
  EXPECT_EQ(two->spec.gop_parallel, 2);
}

TEST(JobArgs, JobFileGivesTheWholeSpec) {
  std::string path = ::testing::TempDir() + "/job.json";
  std::ofstream(path) << R"({"input": "in.mp4", "outputs": [{"path": "a.mp4", "width": 640},
                             {"path": "b.mkv", "codec": "vp9"}], "gop_parallel": 3})";
  Result<JobArgs> args = parse({"--job", path, "--backend", "software", "--dry-run"});
  ASSERT_TRUE(args.is_ok()) << args.status().to_string();
  EXPECT_EQ(args->spec.outputs.size(), 2u);
  EXPECT_EQ(args->spec.outputs[1].codec, VideoCodec::kVp9);
  EXPECT_EQ(args->spec.backend, BackendKind::kSoftware);
  EXPECT_EQ(args->spec.gop_parallel, 3);
  EXPECT_TRUE(args->dry_run);
  // The command line overrides the file's.
  Result<JobArgs> one = parse({"--job", path, "--gop-parallel", "1"});
  ASSERT_TRUE(one.is_ok()) << one.status().to_string();
  EXPECT_EQ(one->spec.gop_parallel, 1);
  EXPECT_FALSE(parse({"--job", path, "in.mp4"}).is_ok());
  EXPECT_FALSE(parse({"--job", path + ".missing"}).is_ok());
  std::remove(path.c_str());
}

// Apple's HLS Authoring Specification for Apple Devices, "Video": the recommended 16:9 H.264
// variants (average bit rate, kb/s), and 6 s segments. Its 768x432 1100 kb/s rung is left out:
// a job holds at most 8 outputs (SpecLimits).
TEST(JobArgs, AppleHlsPresetIsApplesLadder) {
  Result<JobArgs> args = parse({"in.mp4", "--preset", "apple-hls", "--package-dir", "pkg"});
  ASSERT_TRUE(args.is_ok()) << args.status().to_string();
  const JobSpec& spec = args->spec;
  EXPECT_EQ(spec.package.kind, PackageKind::kHls);
  EXPECT_EQ(spec.package.segment_s, 6);
  const std::vector<std::tuple<int, int, int64_t>> apple{
      {416, 234, 145'000},     {640, 360, 365'000},    {768, 432, 730'000},
      {960, 540, 2'000'000},   {1280, 720, 3'000'000}, {1280, 720, 4'500'000},
      {1920, 1080, 6'000'000}, {1920, 1080, 7'800'000}};
  std::vector<std::tuple<int, int, int64_t>> rungs;
  for (const OutputSpec& output : spec.outputs) {
    EXPECT_EQ(output.codec, VideoCodec::kH264);
    rungs.emplace_back(output.width, output.height, output.bitrate);
  }
  EXPECT_EQ(rungs, apple);
}

// A preset sets what its options would; an option on the command line wins over it.
TEST(JobArgs, PresetExpandsAndExplicitOptionsWin) {
  Result<JobArgs> preset = parse({"in.mp4", "out.mp4", "--preset", "web-720p", "--crf", "30"});
  Result<JobArgs> typed = parse({"in.mp4", "out.mp4", "--size", "1280x0", "--codec", "h264",
                                 "--crf", "30", "--gop", "60", "--audio", "aac", "--audio-bitrate",
                                 "96k", "--audio-channels", "2", "--container", "mp4"});
  ASSERT_TRUE(preset.is_ok()) << preset.status().to_string();
  ASSERT_TRUE(typed.is_ok()) << typed.status().to_string();
  EXPECT_EQ(job_spec_to_json(preset->spec), job_spec_to_json(typed->spec));
  EXPECT_EQ(preset->spec.outputs[0].quality, 30);
}

TEST(JobArgs, UnknownPresetIsAUsageErrorNamingIt) {
  Result<JobArgs> args = parse({"in.mp4", "out.mp4", "--preset", "veryfast"});
  ASSERT_FALSE(args.is_ok());
  EXPECT_EQ(args.status().code(), Code::kInvalidArgument);
  EXPECT_NE(args.status().message().find("unknown preset 'veryfast'"), std::string::npos)
      << args.status().message();
}

// A preset file's output keys (service/presets, below the CLI, where the daemon checks its
// preset_dir too) are exactly the command line's per-output options.
TEST(JobArgs, PresetOutputKeysAreTheOutputOptions) {
  EXPECT_EQ(preset_output_keys(), output_option_names());
}

}  // namespace
}  // namespace tc::cli
