#include "pipeline/spec/job_spec.h"

#include <gtest/gtest.h>

#include <limits>
#include <nlohmann/json.hpp>

#include "pipeline/core/text_field.h"

namespace tc {
namespace {

JobSpec one_output(OutputSpec output) {
  JobSpec spec;
  spec.input = "in.mp4";
  spec.outputs.push_back(std::move(output));
  return spec;
}

OutputSpec at(const std::string& path) {
  OutputSpec output;
  output.path = path;
  return output;
}

TEST(JobSpec, ValidSpecPasses) {
  EXPECT_TRUE(validate(one_output(at("out.mp4"))).is_ok());
}

TEST(JobSpec, RejectsOddSizeNamingTheField) {
  OutputSpec output = at("out.mp4");
  output.width = 1281;
  output.height = 720;
  Status status = validate(one_output(output));
  EXPECT_EQ(status.code(), Code::kInvalidArgument);
  EXPECT_NE(status.message().find("outputs[0]"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("1281x720"), std::string::npos) << status.message();
}

// The field at fault travels beside the message, for the API's error details: nobody parses it
// back out of the text.
TEST(JobSpec, ErrorsCarryTheFieldAtFault) {
  OutputSpec odd = at("out.mp4");
  odd.width = 1281;
  odd.height = 720;
  EXPECT_EQ(validate(one_output(odd)).field(), "outputs[0]");
  OutputSpec cbr = at("out.mp4");
  cbr.rate_control = RateControl::kCbr;
  EXPECT_EQ(validate(one_output(cbr)).field(), "outputs[0].bitrate");
  JobSpec no_input = one_output(at("out.mp4"));
  no_input.input.clear();
  EXPECT_EQ(validate(no_input).field(), "input");
  JobSpec too_parallel = one_output(at("out.mp4"));
  too_parallel.gop_parallel = kMaxGopParallel + 1;
  EXPECT_EQ(validate(too_parallel).field(), "gop_parallel");
  too_parallel.gop_parallel = -1;
  EXPECT_EQ(validate(too_parallel).field(), "gop_parallel");
  Result<JobSpec> bad_codec =
      job_spec_from_json(R"({"input": "in.mp4", "outputs": [{"path": "o.mp4", "codec": "h266"}]})");
  ASSERT_FALSE(bad_codec.is_ok());
  EXPECT_EQ(bad_codec.status().field(), "outputs[0].codec");
  EXPECT_EQ(bad_codec.status().message().rfind("outputs[0].codec: unknown codec 'h266'", 0), 0u)
      << bad_codec.status().message();
  // A problem with a path, not a field, names none.
  EXPECT_EQ(validate(one_output(at("out.xyz"))).field(), "");
}

TEST(JobSpec, RejectsNoOutputsAndTooMany) {
  JobSpec spec = one_output(at("a.mp4"));
  spec.outputs.clear();
  EXPECT_EQ(validate(spec).code(), Code::kInvalidArgument);
  for (int i = 0; i < 3; ++i) spec.outputs.push_back(at("o" + std::to_string(i) + ".mp4"));
  EXPECT_EQ(validate(spec, SpecLimits{.max_outputs = 2}).code(), Code::kInvalidArgument);
  EXPECT_TRUE(validate(spec, SpecLimits{.max_outputs = 3}).is_ok());
}

TEST(JobSpec, RejectsDuplicateOutputsAndOverwritingTheInput) {
  JobSpec spec = one_output(at("a.mp4"));
  spec.outputs.push_back(at("a.mp4"));
  EXPECT_EQ(validate(spec).code(), Code::kInvalidArgument);
  EXPECT_EQ(validate(one_output(at("in.mp4"))).code(), Code::kInvalidArgument);
}

TEST(JobSpec, BitrateModesNeedABitrate) {
  OutputSpec output = at("out.mp4");
  output.rate_control = RateControl::kCbr;
  EXPECT_EQ(validate(one_output(output)).code(), Code::kInvalidArgument);
  output.bitrate = 2'000'000;
  EXPECT_TRUE(validate(one_output(output)).is_ok());
}

TEST(JobSpec, ContainerFromExtensionOrExplicit) {
  EXPECT_EQ(*container_of(at("x.MP4")), "mp4");
  EXPECT_EQ(*container_of(at("x.mkv")), "mkv");
  EXPECT_EQ(*container_of(at("x.ts")), "mpegts");
  EXPECT_FALSE(container_of(at("x.avi")).is_ok());
  OutputSpec explicit_ts = at("x.bin");
  explicit_ts.container = "mpegts";
  EXPECT_EQ(*container_of(explicit_ts), "mpegts");
}

TEST(JobSpec, Vp9CannotGoInMpegts) {
  OutputSpec output = at("x.ts");
  output.codec = VideoCodec::kVp9;
  EXPECT_EQ(validate(one_output(output)).code(), Code::kUnsupported);
}

TEST(JobSpec, ParsesNamesAndRejectsUnknownOnes) {
  EXPECT_EQ(*parse_codec("hevc"), VideoCodec::kHevc);
  Result<VideoCodec> bad = parse_codec("h265x");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("h265x"), std::string::npos);
  EXPECT_EQ(*parse_backend("vaapi"), BackendKind::kVaapi);
  EXPECT_EQ(*parse_bitrate("4M"), 4'000'000);
  EXPECT_EQ(*parse_bitrate("800k"), 800'000);
  EXPECT_EQ(*parse_bitrate("1.5M"), 1'500'000);
  EXPECT_FALSE(parse_bitrate("fast").is_ok());
  int width = -1, height = -1;
  EXPECT_TRUE(parse_size("1280x0", width, height).is_ok());
  EXPECT_EQ(width, 1280);
  EXPECT_EQ(height, 0);
  EXPECT_FALSE(parse_size("1280:720", width, height).is_ok());
}

TEST(JobSpec, JsonRoundTrip) {
  JobSpec spec = one_output(at("out.mkv"));
  spec.start_s = 1.5;
  spec.backend = BackendKind::kVulkan;
  spec.outputs[0].codec = VideoCodec::kVp9;
  spec.outputs[0].width = 640;
  spec.outputs[0].rate_control = RateControl::kVbr;
  spec.outputs[0].bitrate = 1'000'000;
  spec.outputs[0].audio = AudioMode::kNone;
  Result<JobSpec> back = job_spec_from_json(job_spec_to_json(spec));
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  EXPECT_EQ(job_spec_to_json(*back), job_spec_to_json(spec));
}

// Every field of a JobSpec set away from its default, written as the JSON a user writes
// (`--job FILE`, the daemon's job config): the literal document below is the oracle, in both
// directions. The structured bindings name every field of every struct the spec holds: a field
// added later fails this test's build until it is set here and in the document, and a field set
// here but not read or written makes one of the comparisons fail. A package's outputs are its
// renditions, as reading normalizes them: MP4, the audio from the first only.
const char* kEveryField = R"({
  "input": "in.mp4", "start_s": 2.5, "duration_s": 7.25, "backend": "cuda", "device": "1",
  "deinterlace": "off", "quality_metrics": "psnr,ssim", "gop_parallel": 3, "verbose_log": true,
  "package": {"kind": "hls", "dir": "pkg", "segment_s": 6.0, "segment_name": "part_{n}",
              "segment_format": "ts", "stereo_audio": false},
  "thumbnails": {"interval_s": 2.5, "width": 320, "height": 180, "columns": 4, "rows": 3},
  "outputs": [
    {"path": "out.ts", "container": "mp4", "codec": "hevc", "width": 1280, "height": 720,
     "fps": "30000/1001", "rate_control": "cbr", "quality": 23, "bitrate": 3000000, "gop": 48,
     "b_frames": 2, "preset": "p4", "audio": "aac", "audio_bitrate": 96000,
     "audio_channels": 2, "audio_rate": 44100, "audio_tracks": "eng,fra", "subtitles": "none",
     "hdr": "keep", "loudnorm": "ebu"},
    {"path": "second.mkv", "container": "mp4", "codec": "hevc", "width": 1280, "height": 720,
     "fps": "30000/1001", "rate_control": "cbr", "quality": 23, "bitrate": 3000000, "gop": 48,
     "b_frames": 2, "preset": "p4", "audio": "none", "audio_bitrate": 96000,
     "audio_channels": 2, "audio_rate": 44100, "audio_tracks": "first", "subtitles": "none",
     "hdr": "tonemap", "loudnorm": "streaming"}]})";

JobSpec every_field_set() {
  JobSpec spec;
  spec.input = "in.mp4";
  spec.start_s = 2.5;
  spec.duration_s = 7.25;
  spec.backend = BackendKind::kCuda;
  spec.device = "1";
  OutputSpec output;
  output.path = "out.ts";
  output.container = "mp4";
  output.codec = VideoCodec::kHevc;
  output.width = 1280;
  output.height = 720;
  output.fps = {30000, 1001};
  output.rate_control = RateControl::kCbr;
  output.quality = 23;
  output.bitrate = 3'000'000;
  output.gop = 48;
  output.b_frames = 2;
  output.preset = "p4";
  output.audio = AudioMode::kAac;
  output.audio_bitrate = 96'000;
  output.audio_channels = 2;
  output.audio_rate = 44'100;
  output.audio_tracks = {AudioTracks::Kind::kLanguages, {"eng", "fra"}};
  output.subtitles = SubtitleMode::kNone;
  output.hdr = HdrMode::kKeep;
  output.loudnorm = Loudnorm::kEbu;
  spec.outputs = {output, output};
  spec.outputs[1].path = "second.mkv";
  spec.outputs[1].audio = AudioMode::kNone;
  spec.outputs[1].audio_tracks = {AudioTracks::Kind::kFirst, {}};
  spec.outputs[1].hdr = HdrMode::kTonemap;
  spec.outputs[1].loudnorm = Loudnorm::kStreaming;
  spec.deinterlace = Deinterlace::kOff;
  spec.quality_metrics = {true, true};
  spec.package = {PackageKind::kHls, "pkg", 6, "part_{n}", SegmentFormat::kTs, false};
  spec.thumbnails = {true, 2.5, 320, 180, 4, 3};
  spec.gop_parallel = 3;
  spec.verbose_log = true;
  return spec;
}

// Each field of `set` differs from the default-constructed struct's.
void expect_set(const OutputSpec& set) {
  const OutputSpec defaults;
  const auto& [path, container, codec, width, height, fps, rate_control, quality, bitrate, gop,
               b_frames, preset, audio, audio_bitrate, audio_channels, audio_rate, audio_tracks,
               subtitles, hdr, loudnorm] = set;
  const auto& [d_path, d_container, d_codec, d_width, d_height, d_fps, d_rate_control, d_quality,
               d_bitrate, d_gop, d_b_frames, d_preset, d_audio, d_audio_bitrate, d_audio_channels,
               d_audio_rate, d_audio_tracks, d_subtitles, d_hdr, d_loudnorm] = defaults;
  EXPECT_NE(path, d_path);
  EXPECT_NE(container, d_container);
  EXPECT_NE(codec, d_codec);
  EXPECT_NE(width, d_width);
  EXPECT_NE(height, d_height);
  const auto& [fps_num, fps_den] = fps;
  EXPECT_NE(fps_num, d_fps.num);
  EXPECT_NE(fps_den, d_fps.den);
  EXPECT_NE(rate_control, d_rate_control);
  EXPECT_NE(quality, d_quality);
  EXPECT_NE(bitrate, d_bitrate);
  EXPECT_NE(gop, d_gop);
  EXPECT_NE(b_frames, d_b_frames);
  EXPECT_NE(preset, d_preset);
  EXPECT_NE(audio, d_audio);
  EXPECT_NE(audio_bitrate, d_audio_bitrate);
  EXPECT_NE(audio_channels, d_audio_channels);
  EXPECT_NE(audio_rate, d_audio_rate);
  const auto& [tracks_kind, tracks_languages] = audio_tracks;
  EXPECT_NE(tracks_kind, d_audio_tracks.kind);
  (void)tracks_languages;  // empty for kFirst: the other output sets it
  EXPECT_NE(subtitles, d_subtitles);
  EXPECT_NE(hdr, d_hdr);
  EXPECT_NE(loudnorm, d_loudnorm);
}

void expect_set(const JobSpec& set) {
  const JobSpec defaults;
  const auto& [input, start_s, duration_s, backend, device, outputs, deinterlace, quality_metrics,
               package, thumbnails, gop_parallel, verbose_log] = set;
  EXPECT_NE(input, defaults.input);
  EXPECT_NE(start_s, defaults.start_s);
  EXPECT_NE(duration_s, defaults.duration_s);
  EXPECT_NE(backend, defaults.backend);
  EXPECT_NE(device, defaults.device);
  ASSERT_EQ(outputs.size(), 2u);
  for (const OutputSpec& output : outputs) expect_set(output);
  EXPECT_FALSE(outputs[0].audio_tracks.languages.empty());
  EXPECT_NE(deinterlace, defaults.deinterlace);
  const auto& [psnr, ssim] = quality_metrics;
  EXPECT_TRUE(psnr && ssim);
  const auto& [kind, dir, segment_s, segment_name, segment_format, stereo_audio] = package;
  EXPECT_NE(kind, defaults.package.kind);
  EXPECT_NE(dir, defaults.package.dir);
  EXPECT_NE(segment_s, defaults.package.segment_s);
  EXPECT_NE(segment_name, defaults.package.segment_name);
  EXPECT_NE(segment_format, defaults.package.segment_format);
  EXPECT_NE(stereo_audio, defaults.package.stereo_audio);
  const auto& [on, interval_s, tile_width, tile_height, columns, rows] = thumbnails;
  EXPECT_NE(on, defaults.thumbnails.on);
  EXPECT_NE(interval_s, defaults.thumbnails.interval_s);
  EXPECT_NE(tile_width, defaults.thumbnails.width);
  EXPECT_NE(tile_height, defaults.thumbnails.height);
  EXPECT_NE(columns, defaults.thumbnails.columns);
  EXPECT_NE(rows, defaults.thumbnails.rows);
  EXPECT_NE(gop_parallel, defaults.gop_parallel);
  EXPECT_NE(verbose_log, defaults.verbose_log);
}

TEST(JobSpec, JsonRoundTripKeepsEveryField) {
  JobSpec spec = every_field_set();
  expect_set(spec);
  nlohmann::json document = nlohmann::json::parse(kEveryField);
  EXPECT_EQ(job_spec_json_value(spec), document) << job_spec_json_value(spec).dump(1);
  Result<JobSpec> read = job_spec_from_json(kEveryField);
  ASSERT_TRUE(read.is_ok()) << read.status().to_string();
  EXPECT_TRUE(*read == spec) << job_spec_to_json(*read);
  Result<JobSpec> back = job_spec_from_json(job_spec_to_json(spec));
  ASSERT_TRUE(back.is_ok()) << back.status().to_string();
  EXPECT_TRUE(*back == spec) << job_spec_to_json(*back);
}

// --audio-channels, --audio-rate, --audio-bitrate: checked naming the field; a copy keeps its
// format, so they are refused with --audio copy. A .webm output without a codec gets VP9 (JSON
// here; the CLI and OutputConfig use the same default_codec), and H.264 in WebM is refused.
TEST(JobSpec, AudioOptionsAndWebmAreCheckedNamingTheField) {
  auto refusal = [](const std::string& outputs) {
    Result<JobSpec> spec =
        job_spec_from_json(R"({"input": "in.mkv", "outputs": [)" + outputs + "]}");
    if (!spec.is_ok()) return spec.status().to_string();
    return validate(*spec).to_string();
  };
  EXPECT_NE(refusal(R"({"path": "a.mp4", "audio_channels": 9})").find("outputs[0].audio_channels"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"path": "a.mp4", "audio_rate": 12345})").find("outputs[0].audio_rate"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"path": "a.mp4", "audio_bitrate": -1})").find("outputs[0].audio_bitrate"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"path": "a.mp4", "audio": "copy", "audio_channels": 2})")
                .find("a copied track keeps its format"),
            std::string::npos);
  EXPECT_NE(refusal(R"({"path": "a.webm", "codec": "h264"})").find("cannot go in webm"),
            std::string::npos);
  Result<JobSpec> webm =
      job_spec_from_json(R"({"input": "in.mkv", "outputs": [{"path": "a.webm"}]})");
  ASSERT_TRUE(webm.is_ok());
  EXPECT_EQ(webm->outputs[0].codec, VideoCodec::kVp9);
  EXPECT_TRUE(validate(*webm).is_ok());
  EXPECT_EQ(*container_of(webm->outputs[0]), "webm");
}

TEST(JobSpec, AudioTracksAndSubtitlesParseAndRejectNamingTheKey) {
  Result<AudioTracks> languages = parse_audio_tracks("eng,fra");
  ASSERT_TRUE(languages.is_ok());
  EXPECT_EQ(languages->languages, (std::vector<std::string>{"eng", "fra"}));
  EXPECT_EQ(name_of(*languages), "eng,fra");
  EXPECT_EQ(parse_audio_tracks("all")->kind, AudioTracks::Kind::kAll);
  EXPECT_EQ(parse_audio_tracks("first")->kind, AudioTracks::Kind::kFirst);
  for (const char* bad : {"", "english", "eng,", "EN", "eng;fra"})
    EXPECT_EQ(parse_audio_tracks(bad).status().code(), Code::kInvalidArgument) << bad;
  EXPECT_EQ(parse_subtitles("burn").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(OutputSpec{}.audio_tracks.kind, AudioTracks::Kind::kAll);  // the default
  EXPECT_EQ(OutputSpec{}.subtitles, SubtitleMode::kCopy);
  Result<JobSpec> bad = job_spec_from_json(
      R"({"input": "a.mp4", "outputs": [{"path": "b.mp4", "audio_tracks": "english"}]})");
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_NE(bad.status().to_string().find("audio_tracks"), std::string::npos)
      << bad.status().to_string();
}

TEST(JobSpec, HdrAndDeinterlaceModesByName) {
  EXPECT_EQ(*parse_hdr("tonemap"), HdrMode::kTonemap);
  EXPECT_EQ(*parse_deinterlace("on"), Deinterlace::kOn);
  Result<HdrMode> bad = parse_hdr("sdr");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("auto, keep, tonemap"), std::string::npos)
      << bad.status().message();
  Result<JobSpec> from_json = job_spec_from_json(
      R"({"input": "in.mp4", "deinterlace": "on", "outputs": [{"path": "a.mp4", "hdr": "keep"}]})");
  ASSERT_TRUE(from_json.is_ok()) << from_json.status().to_string();
  EXPECT_EQ(from_json->deinterlace, Deinterlace::kOn);
  EXPECT_EQ(from_json->outputs[0].hdr, HdrMode::kKeep);
  Result<JobSpec> wrong =
      job_spec_from_json(R"({"input": "in.mp4", "outputs": [{"path": "a.mp4", "hdr": "hdr10"}]})");
  ASSERT_FALSE(wrong.is_ok());
  EXPECT_NE(wrong.status().message().find("outputs[0].hdr"), std::string::npos)
      << wrong.status().message();
}

TEST(JobSpec, QualityMetricsByNameOffByDefault) {
  EXPECT_FALSE(JobSpec{}.quality_metrics.any());
  EXPECT_EQ(*parse_quality_metrics("ssim,psnr"), (QualityMetrics{true, true}));
  EXPECT_EQ(name_of(*parse_quality_metrics("ssim,psnr")), "psnr,ssim");
  EXPECT_EQ(*parse_quality_metrics("psnr"), (QualityMetrics{true, false}));
  EXPECT_FALSE(parse_quality_metrics("none")->any());
  for (const char* bad : {"vmaf", "psnr,", "PSNR", "psnr;ssim"})
    EXPECT_EQ(parse_quality_metrics(bad).status().code(), Code::kInvalidArgument) << bad;
  Result<JobSpec> wrong = job_spec_from_json(
      R"({"input": "in.mp4", "quality_metrics": "vmaf", "outputs": [{"path": "a.mp4"}]})");
  ASSERT_FALSE(wrong.is_ok());
  EXPECT_NE(wrong.status().message().find("quality_metrics"), std::string::npos)
      << wrong.status().message();
}

TEST(JobSpec, JsonAcceptsProtobufStyleInt64StringsAndMissingKeys) {
  Result<JobSpec> spec = job_spec_from_json(
      R"({"input": "a.mp4", "outputs": [{"path": "b.mp4", "bitrate": "3000000", "rate_control": "cbr"}]})");
  ASSERT_TRUE(spec.is_ok()) << spec.status().to_string();
  EXPECT_EQ(spec->outputs[0].bitrate, 3'000'000);
  EXPECT_EQ(spec->outputs[0].codec, VideoCodec::kH264);
  EXPECT_EQ(spec->outputs[0].b_frames, -1);
}

TEST(JobSpec, JsonErrorsNameTheField) {
  Result<JobSpec> spec =
      job_spec_from_json(R"({"input": "a.mp4", "outputs": [{"path": "b.mp4", "codec": "mpeg9"}]})");
  ASSERT_FALSE(spec.is_ok());
  EXPECT_NE(spec.status().message().find("outputs[0].codec"), std::string::npos)
      << spec.status().message();
  EXPECT_FALSE(job_spec_from_json("{not json").is_ok());
  EXPECT_FALSE(job_spec_from_json(R"({"input": 5})").is_ok());
}

// A bitrate without a rate control means VBR wherever the spec comes from (the CLI's --bitrate
// always did; JSON and the daemon's JobConfig left it at the encoder's default quality mode).
TEST(JobSpec, BitrateWithoutRateControlMeansVbrFromJson) {
  Result<JobSpec> spec = job_spec_from_json(
      R"({"input": "a.mp4", "outputs": [{"path": "b.mp4", "bitrate": "800000"},
                                         {"path": "c.mp4", "quality": 20},
                                         {"path": "d.mp4", "bitrate": 800000, "rate_control": "cbr"},
                                         {"path": "e.mp4"}]})");
  ASSERT_TRUE(spec.is_ok()) << spec.status().to_string();
  EXPECT_EQ(spec->outputs[0].rate_control, RateControl::kVbr);
  EXPECT_EQ(spec->outputs[1].rate_control, RateControl::kQuality);
  EXPECT_EQ(spec->outputs[2].rate_control, RateControl::kCbr);
  EXPECT_EQ(spec->outputs[3].rate_control, RateControl::kDefault);
}

TEST(JobSpec, StartAndDurationMustBeFiniteAndBounded) {
  for (double bad : {1e300, kMaxSpecSeconds * 2, -1.0, std::numeric_limits<double>::infinity(),
                     std::numeric_limits<double>::quiet_NaN()}) {
    JobSpec spec = one_output(at("out.mp4"));
    spec.start_s = bad;
    Status start = validate(spec);
    EXPECT_EQ(start.code(), Code::kInvalidArgument) << bad;
    EXPECT_EQ(start.message().rfind("start_s: ", 0), 0u) << start.message();
    spec.start_s = 0;
    spec.duration_s = bad;
    Status duration = validate(spec);
    EXPECT_EQ(duration.code(), Code::kInvalidArgument) << bad;
    EXPECT_EQ(duration.message().rfind("duration_s: ", 0), 0u) << duration.message();
  }
  JobSpec spec = one_output(at("out.mp4"));
  spec.start_s = spec.duration_s = kMaxSpecSeconds;
  EXPECT_TRUE(validate(spec).is_ok());
}

TEST(JobSpec, SecondsToMicrosecondsNeverOverflows) {
  EXPECT_EQ(seconds_to_us(1.5), 1'500'000);
  EXPECT_EQ(seconds_to_us(-3), 0);
  EXPECT_EQ(seconds_to_us(std::numeric_limits<double>::quiet_NaN()), 0);
  EXPECT_GT(seconds_to_us(1e300), 0);
  EXPECT_EQ(seconds_to_us(1e300), seconds_to_us(std::numeric_limits<double>::infinity()));
}

TEST(JobSpec, SidesLongerThanEncodersTakeAreRefusedNamingTheOutput) {
  OutputSpec tall = at("out.mp4");
  tall.width = 2;
  tall.height = 100000;  // 200,000 pixels: within any pixel cap
  Status status = validate(one_output(tall));
  EXPECT_EQ(status.code(), Code::kInvalidArgument);
  EXPECT_NE(status.message().find("outputs[0]: size 2x100000"), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find(std::to_string(kMaxSide)), std::string::npos) << status.message();
  tall.height = kMaxSide;
  EXPECT_TRUE(validate(one_output(tall)).is_ok());
  EXPECT_FALSE(validate(one_output(tall), SpecLimits{.max_side = 4096}).is_ok());
}

// Issue 36: a NUL byte cuts a path at the kernel (`DIR/src.mp4\0.mkv` opens the input for
// writing), so it is refused in every string, naming the field, before any other check.
TEST(RepresentableText, ANulByteIsRefusedNamingTheField) {
  JobSpec spec = one_output(at("out.mp4"));
  spec.outputs.push_back(at(std::string("in.mp4\0.mkv", 11)));
  Status status = validate(spec);
  EXPECT_EQ(status.code(), Code::kInvalidArgument);
  EXPECT_EQ(status.message(), "outputs[1].path: contains a NUL byte");
  EXPECT_EQ(status.field(), "outputs[1].path");

  JobSpec package = one_output(at("720p"));
  package.package.kind = PackageKind::kHls;
  package.package.dir = std::string("/media/git\0x", 12);
  EXPECT_EQ(validate(package).message(), "package.dir: contains a NUL byte");

  JobSpec input = one_output(at("out.mp4"));
  input.input = std::string("notes\0x.mp4", 11);
  EXPECT_EQ(validate(input).message(), "input: contains a NUL byte");
}

TEST(RepresentableText, InvalidUtf8IsRefusedNamingTheField) {
  OutputSpec output = at("out.mp4");
  output.preset = "fast\xff";
  Status status = validate(one_output(output));
  EXPECT_EQ(status.code(), Code::kInvalidArgument);
  EXPECT_EQ(status.message(), "outputs[0].preset: not valid UTF-8 (at byte 4)");
  // Overlong forms and surrogates are not UTF-8 either; real multibyte text is.
  EXPECT_NE(invalid_utf8_at("\xc0\xaf"), std::string_view::npos);
  EXPECT_NE(invalid_utf8_at("\xed\xa0\x80"), std::string_view::npos);
  EXPECT_EQ(invalid_utf8_at("caf\xc3\xa9 \xf0\x9f\x8e\xac"), std::string_view::npos);
}

// A 3 MB package dir was accepted, then echoed whole into the error and a log line.
TEST(RepresentableText, AThreeMegabytePackageDirIsRefusedWithoutEchoingIt) {
  JobSpec spec = one_output(at("720p"));
  spec.package.kind = PackageKind::kHls;
  spec.package.dir = "/media/" + std::string(3 << 20, 'a');
  Status status = validate(spec);
  EXPECT_EQ(status.code(), Code::kInvalidArgument);
  EXPECT_EQ(status.field(), "package.dir");
  EXPECT_LT(status.message().size(), 100u) << status.message().substr(0, 200);
}

TEST(RepresentableText, CutTextKeepsWholeCharacters) {
  EXPECT_EQ(cut_text("ab\xc3\xa9", 3), "ab");
  EXPECT_EQ(cut_text("ab\xc3\xa9", 4), "ab\xc3\xa9");
  EXPECT_EQ(cut_text(std::string(1000, 'x'), kMaxTitleBytes).size(), kMaxTitleBytes);
}

}  // namespace
}  // namespace tc
