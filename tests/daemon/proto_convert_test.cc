// The RPC edge: JobConfig <-> JobSpec field by field, and a job's typed report as JobResult
// with its one report_json.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "service/daemon/api/proto_convert.h"

using namespace tc;
using namespace tc::daemon;

namespace {

JobSpec every_field_set() {
  JobSpec spec;
  spec.input = "/media/in.mp4";
  spec.start_s = 3.5;
  spec.duration_s = 20;
  spec.backend = BackendKind::kVaapi;
  spec.device = "/dev/dri/renderD129";
  OutputSpec output;
  output.path = "/media/out.ts";
  output.container = "mpegts";
  output.codec = VideoCodec::kHevc;
  output.width = 1280;
  output.height = 720;
  output.fps = {30000, 1001};
  output.rate_control = RateControl::kVbr;
  output.quality = 30;
  output.bitrate = 2'500'000;
  output.gop = 60;
  output.b_frames = 3;
  output.preset = "slow";
  output.audio = AudioMode::kCopy;
  output.audio_bitrate = 64'000;
  output.audio_tracks = {AudioTracks::Kind::kLanguages, {"fra"}};
  output.subtitles = SubtitleMode::kNone;
  output.hdr = HdrMode::kTonemap;
  spec.deinterlace = Deinterlace::kOn;
  spec.outputs = {output, output};
  spec.outputs[1].path = "/media/second.mkv";
  spec.outputs[1].container = "";
  spec.outputs[1].audio = AudioMode::kAac;
  spec.outputs[1].loudnorm = Loudnorm::kStreaming;
  spec.quality_metrics = {true, true};
  spec.gop_parallel = 2;
  spec.verbose_log = true;
  return spec;
}

TEST(ProtoConvert, JobConfigRoundTripKeepsEveryField) {
  JobSpec spec = every_field_set();
  pb::JobConfig config;
  config_from_spec(spec, &config);
  EXPECT_EQ(config.outputs(0).codec(), "hevc");
  Result<JobSpec> back = spec_from_config(config);
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  EXPECT_EQ(*back, spec);
}

// PackageConfig.stereo_audio (unset = true): the CLI's --no-stereo-audio reaches the request as
// false and comes back; a request that leaves it unset gets the stereo rendition.
TEST(ProtoConvert, PackageStereoAudioRoundTripsAndUnsetMeansOn) {
  JobSpec spec = every_field_set();
  spec.package.kind = PackageKind::kHls;
  spec.package.dir = "/media/show";
  spec.package.stereo_audio = false;
  pb::JobConfig config;
  config_from_spec(spec, &config);
  ASSERT_TRUE(config.package().has_stereo_audio());
  EXPECT_FALSE(config.package().stereo_audio());
  Result<JobSpec> back = spec_from_config(config);
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  EXPECT_EQ(back->package, spec.package);
  config.mutable_package()->clear_stereo_audio();
  back = spec_from_config(config);
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  EXPECT_TRUE(back->package.stereo_audio);
}

TEST(ProtoConvert, EmptyEnumsTakeDefaultsAndUnknownOnesNameTheField) {
  pb::JobConfig config;
  config.set_input("/media/in.mp4");
  config.add_outputs()->set_path("/media/out.mp4");
  Result<JobSpec> spec = spec_from_config(config);
  ASSERT_TRUE(spec.is_ok());
  EXPECT_EQ(spec->backend, BackendKind::kAuto);
  EXPECT_EQ(spec->outputs[0].codec, VideoCodec::kH264);
  EXPECT_EQ(spec->outputs[0].quality, -1);  // unset optional: the encoder's default
  EXPECT_EQ(spec->outputs[0].audio_bitrate, OutputSpec{}.audio_bitrate);
  config.mutable_outputs(0)->set_rate_control("loud");
  Result<JobSpec> bad = spec_from_config(config);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("outputs[0].rate_control"), std::string::npos)
      << bad.status().message();
}

// The deprecated media_duration_s, read as an older client reads it.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
double deprecated_media_duration(const pb::Progress& p) {
  return p.media_duration_s();
}
double deprecated_media_duration(const pb::JobResult& r) {
  return r.media_duration_s();
}
#pragma GCC diagnostic pop

TEST(ProtoConvert, SucceededJobCarriesItsTypedReport) {
  JobRecord job;
  job.id = "j-1";
  job.state = JobState::kSucceeded;
  job.spec = every_field_set();
  job.progress.input_duration_s = 20;
  JobReport report;
  report.input = "/media/in.mp4";
  report.stages.push_back(
      {"decode", "hevc", StageDevice{BackendKind::kVaapi, "/dev/dri/renderD129", "xe"}});
  report.outputs.push_back({"/media/out.ts", "hevc_vaapi", "vaapi /dev/dri/renderD129 (xe)", 1280,
                            720, 480, 5'000'000, 20, 2'000'000});
  report.outputs[0].quality = QualityScore{480, 39.5, 40.25, std::nullopt};
  report.streams.push_back({0, 3, "subtitle", "subrip", "eng", "English", false, "",
                            "MPEG-TS cannot carry text subtitles"});
  report.media_duration_s = 19.5;
  report.setup_s = 0.25;
  report.wall_s = 4;
  report.threads = {{"decode", 3.5, 0.25}, {"out0", 3.75, 0}};
  metrics::EngineUsage engines;
  engines.samples = 8;
  report.engines = engines;
  job.report = report;
  pb::Job out;
  job_to_proto(job, &out);
  EXPECT_EQ(out.progress().input_duration_s(), 20);
  EXPECT_EQ(deprecated_media_duration(out.progress()), 20);  // still filled, the same
  const pb::JobResult& result = out.result();
  EXPECT_EQ(result.stages(0).device(), "vaapi /dev/dri/renderD129 (xe)");
  // Programs read the parts, never the text.
  EXPECT_EQ(result.stages(0).device_parts().backend(), "vaapi");
  EXPECT_EQ(result.stages(0).device_parts().path(), "/dev/dri/renderD129");
  EXPECT_EQ(result.stages(0).device_parts().driver(), "xe");
  EXPECT_EQ(result.outputs(0).frames(), 480);
  EXPECT_EQ(result.outputs(0).quality().frames(), 480);
  EXPECT_EQ(result.outputs(0).quality().psnr_avg_db(), 40.25);
  EXPECT_EQ(result.outputs(0).quality().psnr_y_db(), 39.5);
  EXPECT_FALSE(result.outputs(0).quality().has_ssim());  // not asked: unset, not 0
  EXPECT_EQ(result.media_processed_s(), 19.5);
  EXPECT_EQ(deprecated_media_duration(result), 19.5);  // still filled, the same
  EXPECT_EQ(result.setup_s(), 0.25);                   // as report_json has it
  ASSERT_EQ(result.threads_size(), 2);
  EXPECT_EQ(result.threads(1).name(), "out0");
  EXPECT_EQ(result.threads(1).busy_s(), 3.75);
  EXPECT_EQ(result.threads(0).blocked_s(), 0.25);
  EXPECT_EQ(result.engines().samples(), 8);
  ASSERT_EQ(result.streams_size(), 1);
  EXPECT_EQ(result.streams(0).input_stream(), 3);
  EXPECT_FALSE(result.streams(0).kept());
  EXPECT_EQ(result.streams(0).reason(), "MPEG-TS cannot carry text subtitles");
  nlohmann::json json = nlohmann::json::parse(result.report_json());
  EXPECT_EQ(json["outputs"][0]["encoder"], "hevc_vaapi");
  EXPECT_EQ(json["engines"]["samples"], 8);
  EXPECT_EQ(json["streams"][0]["outcome"], "dropped: MPEG-TS cannot carry text subtitles");
  EXPECT_EQ(out.config().outputs(1).path(), "/media/second.mkv");
}

TEST(ProtoConvert, ThumbnailsRoundTripAndAnExplicitZeroIntervalIsRefused) {
  JobSpec spec = every_field_set();
  spec.thumbnails = {true, 2.5, 0, 120, 4, 3};
  pb::JobConfig config;
  config_from_spec(spec, &config);
  Result<JobSpec> back = spec_from_config(config);
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  EXPECT_EQ(back->thumbnails, spec.thumbnails);
  // Set but empty: on, with the defaults; an interval of 0 reaches the checks.
  config.mutable_thumbnails()->Clear();
  back = spec_from_config(config);
  ASSERT_TRUE(back.is_ok());
  EXPECT_EQ(back->thumbnails, (ThumbnailSpec{.on = true}));
  config.mutable_thumbnails()->set_interval_s(0);
  back = spec_from_config(config);
  ASSERT_TRUE(back.is_ok());
  EXPECT_EQ(validate(*back).field(), "thumbnails.interval_s");
}

// A succeeded job with `report`, as GetJob returns it.
pb::Job succeeded_job(const JobReport& report) {
  JobRecord job;
  job.id = "j-2";
  job.state = JobState::kSucceeded;
  job.spec = every_field_set();
  job.report = report;
  pb::Job out;
  job_to_proto(job, &out);
  return out;
}

TEST(ProtoConvert, ThumbnailsReportBecomesItsResult) {
  JobReport report;
  report.thumbnails =
      ThumbnailReport{"/media/thumbnails.vtt", {"sheet_1.jpg"}, 5, 2, 160, 90, 5, 5};
  pb::Job out = succeeded_job(report);
  const pb::ThumbnailsResult& thumbnails = out.result().thumbnails();
  EXPECT_EQ(thumbnails.index(), "/media/thumbnails.vtt");
  ASSERT_EQ(thumbnails.sheets_size(), 1);
  EXPECT_EQ(thumbnails.sheets(0), "sheet_1.jpg");
  EXPECT_EQ(thumbnails.tiles(), 5);
  EXPECT_EQ(thumbnails.width(), 160);
  EXPECT_EQ(nlohmann::json::parse(out.result().report_json())["thumbnails"]["tiles"], 5);
}

// Each mid-stream change, in order, as its own message (and in report_json as the worker wrote it).
TEST(ProtoConvert, SourceChangesReachTheResultInOrder) {
  JobReport report;
  report.source_changes = {{2.0, "640x360 yuv420p", "320x240 yuv420p"},
                           {4.5, "320x240 yuv420p", "1920x1080 vaapi (nv12)"}};
  pb::Job out = succeeded_job(report);
  const pb::JobResult& result = out.result();
  ASSERT_EQ(result.source_changes_size(), 2);
  EXPECT_EQ(result.source_changes(0).time_s(), 2.0);
  EXPECT_EQ(result.source_changes(0).before(), "640x360 yuv420p");
  EXPECT_EQ(result.source_changes(0).after(), "320x240 yuv420p");
  EXPECT_EQ(result.source_changes(1).time_s(), 4.5);
  EXPECT_EQ(result.source_changes(1).after(), "1920x1080 vaapi (nv12)");
  nlohmann::json json = nlohmann::json::parse(result.report_json());
  EXPECT_EQ(json["source_changes"][1]["from"], "320x240 yuv420p");
  // A job whose source kept its size has none.
  EXPECT_EQ(succeeded_job(JobReport{}).result().source_changes_size(), 0);
}

// Usage you can bill: each ended attempt's own, "cpu" as cpu_seconds and every other resource an
// engine class; the job's is their sum; an attempt not metered (running, no worker) has none.
TEST(ProtoConvert, AJobsUsageIsItsAttemptsSummedAndEachAttemptKeepsItsOwn) {
  JobRecord job;
  job.id = "metered";
  job.state = JobState::kSucceeded;
  job.attempts = {{1, "node-a", "software", 1000, 2000, AttemptOutcome::kCrashed, {}, {}},
                  {2, "node-b", "software", 3000, 4000, AttemptOutcome::kSucceeded, {}, {}},
                  {3, "node-b", "software", 5000, 0, AttemptOutcome::kRunning, {}, {}}};
  job.attempts[0].usage = {{"cpu", 1.5}, {"video", 2.0}};
  job.attempts[1].usage = {{"cpu", 0.25}, {"video", 1.0}, {"render", 0.5}};
  pb::Job out;
  job_to_proto(job, &out);
  ASSERT_EQ(out.attempts_size(), 3);
  EXPECT_DOUBLE_EQ(out.attempts(0).usage().cpu_seconds(), 1.5);
  EXPECT_DOUBLE_EQ(out.attempts(0).usage().engine_seconds().at("video"), 2.0);
  EXPECT_EQ(out.attempts(0).usage().engine_seconds().count("cpu"), 0u);
  EXPECT_FALSE(out.attempts(2).has_usage());
  ASSERT_TRUE(out.has_usage());
  EXPECT_DOUBLE_EQ(out.usage().cpu_seconds(), 1.75);
  EXPECT_DOUBLE_EQ(out.usage().engine_seconds().at("video"), 3.0);
  EXPECT_DOUBLE_EQ(out.usage().engine_seconds().at("render"), 0.5);
  EXPECT_EQ(out.usage().engine_seconds_size(), 2);

  JobRecord unmetered;
  unmetered.state = JobState::kQueued;
  pb::Job none;
  job_to_proto(unmetered, &none);
  EXPECT_FALSE(none.has_usage());
}

}  // namespace
