// A job file says what it means: every key is one the product reads (a typo is refused, naming
// it, rather than run with the default), and the proto JSON names that programs read back from
// the API (lowerCamelCase) are taken for the same fields.
#include <gtest/gtest.h>

#include "pipeline/spec/job_spec.h"
#include "pipeline/spec/json_fields.h"

namespace tc {
namespace {

Status parsed(const std::string& json) { return job_spec_from_json(json).status(); }

TEST(JobJson, AnUnknownKeyIsRefusedNamingItAndItsObject) {
  Status typo = parsed(R"({"input": "in.mp4", "outputs": [{"path": "o.mp4", "widht": 320}]})");
  EXPECT_EQ(typo.code(), Code::kInvalidArgument);
  EXPECT_EQ(typo.field(), "outputs[0]");
  EXPECT_NE(typo.message().find("unknown key 'widht'"), std::string::npos) << typo.message();
  Status top = parsed(R"({"input": "in.mp4", "outptus": [], "outputs": [{"path": "o.mp4"}]})");
  EXPECT_EQ(top.field(), "job");
  EXPECT_NE(top.message().find("'outptus'"), std::string::npos) << top.message();
  Status package = parsed(
      R"({"input": "in.mp4", "outputs": [{"path": "a"}], "package": {"kind": "hls", "segment": 4}})");
  EXPECT_EQ(package.field(), "package");
  Status thumbnails =
      parsed(R"({"input": "in.mp4", "outputs": [{"path": "o.mp4"}], "thumbnails": {"every": 5}})");
  EXPECT_EQ(thumbnails.field(), "thumbnails");
}

TEST(JobJson, AKeyThatCannotBePrintedIsEscapedInTheMessage) {
  Status odd = parsed("{\"input\": \"in.mp4\", \"outputs\": [{\"path\": \"o.mp4\"}], "
                      "\"x\\nERROR forged\": 1}");
  EXPECT_EQ(odd.code(), Code::kInvalidArgument);
  EXPECT_EQ(odd.message().find('\n'), std::string::npos) << odd.message();
}

TEST(JobJson, ProtoJsonNamesAreTheSameFields) {
  Result<JobSpec> camel = job_spec_from_json(
      R"({"input": "in.mp4", "startS": 1.5, "qualityMetrics": "psnr", "gopParallel": 2,
          "verboseLog": true,
          "outputs": [{"path": "o.mp4", "bFrames": 2, "rateControl": "cbr", "bitrate": 800000,
                       "audioBitrate": 96000}],
          "package": {"kind": "hls", "segmentS": 4, "segmentFormat": "ts"}})");
  ASSERT_TRUE(camel.is_ok()) << camel.status().message();
  EXPECT_EQ(camel->start_s, 1.5);
  EXPECT_EQ(camel->gop_parallel, 2);
  EXPECT_TRUE(camel->verbose_log);
  EXPECT_EQ(camel->outputs[0].b_frames, 2);
  EXPECT_EQ(camel->outputs[0].rate_control, RateControl::kCbr);
  EXPECT_EQ(camel->outputs[0].audio_bitrate, 96000);
  EXPECT_EQ(camel->package.segment_s, 4);
  EXPECT_EQ(camel->package.segment_format, SegmentFormat::kTs);
}

TEST(JobJson, BothNamesOfOneFieldAreRefused) {
  Status twice =
      parsed(R"({"input": "in.mp4", "outputs": [{"path": "o.mp4", "b_frames": 1, "bFrames": 3}]})");
  EXPECT_EQ(twice.field(), "outputs[0].b_frames");
  EXPECT_NE(twice.message().find("given twice"), std::string::npos) << twice.message();
}

TEST(JobJson, WhatTheProductWritesItReadsBack) {
  JobSpec spec;
  spec.input = "in.mp4";
  spec.outputs.push_back(OutputSpec{});
  spec.outputs[0].path = "o.mp4";
  spec.package.kind = PackageKind::kHls;
  spec.thumbnails.on = true;
  Result<JobSpec> back = job_spec_from_json(job_spec_to_json(spec));
  EXPECT_TRUE(back.is_ok()) << back.status().message();
}

// verbose_log reaches the worker in the job's JSON: written when on (and only then, so that every
// other job's JSON stays as it was), read back; not a boolean is refused naming it.
TEST(JobJson, VerboseLogIsWrittenWhenOnAndReadBack) {
  JobSpec spec;
  spec.input = "in.mp4";
  spec.outputs.push_back(OutputSpec{});
  spec.outputs[0].path = "o.mp4";
  EXPECT_EQ(job_spec_to_json(spec).find("verbose_log"), std::string::npos);
  spec.verbose_log = true;
  Result<JobSpec> back = job_spec_from_json(job_spec_to_json(spec));
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  EXPECT_TRUE(back->verbose_log);
  Status wrong = parsed(R"({"input": "in.mp4", "outputs": [{"path": "o.mp4"}], "verbose_log": 1})");
  EXPECT_EQ(wrong.field(), "verbose_log");
}

TEST(JobJson, LowerCamelCaseIsProtobufsJsonName) {
  EXPECT_EQ(lower_camel_case("b_frames"), "bFrames");
  EXPECT_EQ(lower_camel_case("segment_s"), "segmentS");
  EXPECT_EQ(lower_camel_case("input"), "input");
}

}  // namespace
}  // namespace tc
