// Progress and JobReport as JSON: every field survives the round trip, a wrong type is an
// error naming its key, and the keys clients read stay what they were.
#include <gtest/gtest.h>

#include "pipeline/exec/report.h"

namespace tc {
namespace {

using nlohmann::json;

Progress busy_progress() {
  Progress p;
  p.frames_decoded = 1200;
  p.frames_encoded = 2400;
  p.media_time_s = 40.5;
  p.input_duration_s = 60.25;
  p.elapsed_s = 12.5;
  p.fps = 96;
  p.speed = 3.24;
  return p;
}

JobReport full_report() {
  JobReport r;
  r.input = "/media/in.mp4";
  r.backend = "vaapi";
  r.backend_reason = "the only usable device";
  r.stages.push_back({"decode", "h264 (VA-API hwaccel)",
                      StageDevice{BackendKind::kVaapi, "/dev/dri/renderD128", "i915"}});
  r.stages.push_back({"mux out0", "mp4", StageDevice{}});
  r.outputs.push_back({"/out/a.mp4", "h264_vaapi", "vaapi /dev/dri/renderD128 (i915)", 1280, 720,
                       1500, 4'000'000, 60.0, 533'333});
  r.outputs[0].quality = QualityScore{1500, 40.125, 41.5, 0.9825};
  r.outputs.push_back({"/out/b.mkv", "copy", "cpu", 1920, 1080, 1501, 9'000'000, 60.04, 1'199'200});
  r.streams.push_back({0, 1, "audio", "pcm_s16le", "fra", "Français", true, "encode aac",
                       "mp4 cannot hold pcm_s16le"});
  r.streams.push_back({1, 4, "subtitle", "ass", "eng", "", false, "", "--subtitles none"});
  r.frames_decoded = 1501;
  r.media_duration_s = 60.04;
  r.setup_s = 0.35;
  r.wall_s = 7.5;
  r.cpu_s = 3.25;
  r.fps = 200.1;
  r.speed = 8.0;
  r.first_frame_s = 0.12;
  metrics::EngineUsage engines;
  engines.source = "drm-fdinfo";
  engines.driver = "i915";
  engines.available = true;
  engines.engines.push_back({"video", "video (decode+encode)", 41.5, 2});
  engines.memory_total_peak_bytes = 120 << 20;
  engines.cpu_cores = 0.4;
  engines.interval_s = 7.5;
  engines.samples = 15;
  r.engines = engines;
  r.threads = {{"decode", 1.25, 6.25}, {"video graph", 3.5, 0.5}, {"out0", 7.25, 0}};
  return r;
}

void expect_same_stage(const Stage& a, const Stage& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.component, b.component);
  EXPECT_EQ(a.device.backend, b.device.backend);
  EXPECT_EQ(a.device.path, b.device.path);
  EXPECT_EQ(a.device.driver, b.device.driver);
}

TEST(ReportJson, ProgressRoundTripKeepsEveryField) {
  Progress p = busy_progress();
  Progress back;
  ASSERT_TRUE(from_json(json(p), back).is_ok());
  EXPECT_EQ(back, p);
  // The input's length under the name that says so, and under the deprecated key clients read.
  EXPECT_EQ(json(p)["input_duration_s"], 60.25);
  EXPECT_EQ(json(p)["media_duration_s"], 60.25);
}

TEST(ReportJson, JobReportRoundTripKeepsEveryField) {
  JobReport r = full_report();
  JobReport back;
  Status read = from_json(json::parse(json(r).dump()), back);
  ASSERT_TRUE(read.is_ok()) << read.to_string();
  EXPECT_EQ(back.input, r.input);
  EXPECT_EQ(back.backend, r.backend);
  EXPECT_EQ(back.backend_reason, r.backend_reason);
  ASSERT_EQ(back.stages.size(), 2u);
  expect_same_stage(back.stages[0], r.stages[0]);
  expect_same_stage(back.stages[1], r.stages[1]);
  EXPECT_EQ(back.outputs, r.outputs);
  EXPECT_EQ(back.streams, r.streams);
  EXPECT_EQ(json(r)["streams"][0]["outcome"], "kept: encode aac (mp4 cannot hold pcm_s16le)");
  EXPECT_EQ(back.frames_decoded, r.frames_decoded);
  EXPECT_EQ(back.media_duration_s, r.media_duration_s);
  // The media processed under the name that says so, and under the deprecated key.
  EXPECT_EQ(json(r)["media_processed_s"], 60.04);
  EXPECT_EQ(json(r)["media_duration_s"], 60.04);
  EXPECT_EQ(back.setup_s, r.setup_s);
  EXPECT_EQ(back.wall_s, r.wall_s);
  EXPECT_EQ(back.cpu_s, r.cpu_s);
  EXPECT_EQ(back.fps, r.fps);
  EXPECT_EQ(back.speed, r.speed);
  EXPECT_EQ(back.first_frame_s, r.first_frame_s);
  EXPECT_EQ(back.threads, r.threads);
  EXPECT_EQ(json(r)["threads"][1]["busy_s"], 3.5);
  ASSERT_TRUE(back.engines.has_value());
  EXPECT_EQ(metrics::engine_usage_to_json(*back.engines),
            metrics::engine_usage_to_json(*r.engines));
}

TEST(ReportJson, QualityOnlyWhereMeasuredAndOnlyTheMetricsAsked) {
  JobReport r = full_report();
  json written = r;
  EXPECT_DOUBLE_EQ(written["outputs"][0]["quality"]["psnr_avg_db"].get<double>(), 41.5);
  EXPECT_FALSE(written["outputs"][1].contains("quality"));  // a copy: nothing measured
  r.outputs[0].quality = QualityScore{10, std::nullopt, std::nullopt, 0.5};
  written = r;
  EXPECT_FALSE(written["outputs"][0]["quality"].contains("psnr_y_db"));
  EXPECT_EQ(quality_text(*r.outputs[0].quality), "SSIM 0.5000, 10 frames compared");
  EXPECT_EQ(quality_text(QualityScore{3, 40.125, 41.5, std::nullopt}),
            "PSNR 41.50 dB (y 40.12), 3 frames compared");
  JobReport back;
  written["outputs"][0]["quality"]["ssim"] = "high";
  Status read = from_json(written, back);
  EXPECT_EQ(read.code(), Code::kInvalidArgument);
  EXPECT_NE(read.message().find("outputs[0].quality.ssim"), std::string::npos) << read.message();
}

TEST(ReportJson, StagesKeepTheirReadableDeviceAndEnginesOnlyWhenMeasured) {
  JobReport r = full_report();
  json j = r;
  EXPECT_EQ(j["stages"][0]["device"], "vaapi /dev/dri/renderD128 (i915)");
  EXPECT_EQ(j["stages"][1]["device"], "cpu");
  r.engines.reset();
  EXPECT_FALSE(json(r).contains("engines"));  // `transcode run` measures none
  JobReport back;
  ASSERT_TRUE(from_json(json(r), back).is_ok());
  EXPECT_FALSE(back.engines.has_value());
}

TEST(ReportJson, MissingKeysKeepDefaultsAndWrongTypesNameTheKey) {
  Progress p;
  ASSERT_TRUE(from_json(json::parse(R"({"frames_decoded": 5})"), p).is_ok());
  EXPECT_EQ(p.frames_decoded, 5);
  EXPECT_EQ(p.input_duration_s, 0);
  Status wrong = from_json(json::parse(R"({"frames_decoded": "many"})"), p);
  EXPECT_EQ(wrong.code(), Code::kInvalidArgument);
  EXPECT_NE(wrong.message().find("frames_decoded"), std::string::npos) << wrong.message();
  JobReport r;
  Status nested = from_json(json::parse(R"({"outputs": [{}, {"frames": 1.5}]})"), r);
  EXPECT_NE(nested.message().find("outputs[1].frames"), std::string::npos) << nested.message();
  Status backend = from_json(json::parse(R"({"stages": [{"device_backend": "quantum"}]})"), r);
  EXPECT_NE(backend.message().find("stages[0].device_backend"), std::string::npos)
      << backend.message();
  EXPECT_FALSE(from_json(json::parse("[1, 2]"), r).is_ok());
}

}  // namespace
}  // namespace tc
