// The publish request and its answer on the worker's pipes (worker_protocol.h): they round-trip,
// a line that does not read is a refusal, and so is the end of the worker's stdin (the daemon
// gone). The job, the first line of that stdin, is one line.
#include <gtest/gtest.h>

#include <sstream>

#include "pipeline/spec/job_spec.h"
#include "service/daemon/worker/worker_protocol.h"

namespace tc::daemon {
namespace {

TEST(PublishProtocol, TheRequestIsAWorkerLineOfItsOwnKind) {
  Result<WorkerMessage> request = parse_worker_line(publish_request_line());
  ASSERT_TRUE(request.is_ok()) << request.status().message();
  EXPECT_EQ(request->kind, WorkerMessage::Kind::kPublish);
  Result<WorkerMessage> odd = parse_worker_line(R"({"publish": {"now": true}})");
  EXPECT_FALSE(odd.is_ok());
}

TEST(PublishProtocol, AllowedAndRefusedAnswersRoundTrip) {
  EXPECT_TRUE(parse_publish_answer(publish_answer_line(Status::ok())).is_ok());
  Status fenced(Code::kCancelled, "attempt 2 of job j-1 no longer owns it (attempt 3 does)", true);
  Status back = parse_publish_answer(publish_answer_line(fenced));
  EXPECT_EQ(back.code(), fenced.code());
  EXPECT_EQ(back.message(), fenced.message());
  EXPECT_EQ(back.retryable(), fenced.retryable());
  EXPECT_EQ(publish_answer_line(fenced).find('\n'), std::string::npos);
}

TEST(PublishProtocol, AnAnswerThatDoesNotReadRefuses) {
  for (const char* line : {"", "yes", R"({"publish": true})", R"({"publish": {}})",
                           R"({"publish": {"allowed": 1}})", R"({"publish": {"allowed": false}})",
                           R"({"publish": {"allowed": false, "error": {"code": "ok"}}})",
                           R"({"publish": {"allowed": true}, "also": 1})"}) {
    Status answer = parse_publish_answer(line);
    EXPECT_EQ(answer.code(), Code::kInternal) << line;
    EXPECT_NE(answer.message().find(line), std::string::npos) << answer.message();
  }
}

TEST(PublishProtocol, TheEndOfStdinRefuses) {
  std::istringstream closed("");
  Status answer = read_publish_answer(closed);
  EXPECT_FALSE(answer.is_ok());
  EXPECT_NE(answer.message().find("no answer"), std::string::npos) << answer.message();
  // The answer is the next line, whatever follows.
  std::istringstream answered(publish_answer_line(Status::ok()) + "\n" +
                              publish_answer_line(Status(Code::kInternal, "late")) + "\n");
  EXPECT_TRUE(read_publish_answer(answered).is_ok());
  std::istringstream refused(publish_answer_line(Status(Code::kInternal, "fenced")) + "\n");
  EXPECT_EQ(read_publish_answer(refused).message(), "fenced");
}

TEST(PublishProtocol, TheJobIsOneLineEvenWithNewlinesInItsPaths) {
  WorkerJob job;
  job.spec.input = "/media/two\nlines.mp4";
  job.spec.outputs.push_back(OutputSpec{});
  job.spec.outputs[0].path = "/media/out\n.mp4";
  job.attempt = 3;
  job.id = "j-0123456789abcdef";
  std::string text = job_line(job);
  EXPECT_EQ(text.find('\n'), std::string::npos) << text;
  Result<WorkerJob> back = parse_job_line(text);
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  EXPECT_EQ(back->spec, job.spec);
  EXPECT_EQ(back->attempt, 3);
  EXPECT_EQ(back->id, job.id);  // for the worker's log lines
}

// A warm worker waits for its job after saying it is ready; a job line that does not read is
// refused naming what is wrong, never run with a default attempt or spec.
TEST(PublishProtocol, ReadyIsAWorkerLineAndABadJobLineNamesItsFault) {
  Result<WorkerMessage> ready = parse_worker_line(ready_line());
  ASSERT_TRUE(ready.is_ok()) << ready.status().message();
  EXPECT_EQ(ready->kind, WorkerMessage::Kind::kReady);
  EXPECT_FALSE(parse_worker_line(R"({"ready": {"device": 1}})").is_ok());
  struct Case {
    const char* line;
    const char* named;
  };
  for (const Case& c : {Case{"", "not {"}, Case{R"({"job": {"spec": {}}})", "attempt"},
                        Case{R"({"job": {"attempt": -1, "spec": {}}})", "attempt"},
                        Case{R"({"job": {"attempt": 1}})", "spec"},
                        Case{R"({"job": {"attempt": 1, "spec": {"input": 7}}})", "input"}}) {
    Result<WorkerJob> job = parse_job_line(c.line);
    ASSERT_FALSE(job.is_ok()) << c.line;
    EXPECT_EQ(job.status().code(), Code::kInvalidArgument) << c.line;
    EXPECT_NE(job.status().message().find(c.named), std::string::npos) << job.status().message();
  }
}

}  // namespace
}  // namespace tc::daemon
