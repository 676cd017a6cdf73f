// Issue 10's other findings, on a real daemon: a damaged or unwritable job database refuses to
// start, requests are bounded (labels, paths, ids) and user values come back short and escaped,
// ListJobs pages by bytes, and the job spec's rules hold over the API as from the CLI.
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "daemon_fixture.h"
#include "pipeline/core/file.h"
#include "service/client/error_details.h"
#include "tests/daemon/string_fields.h"
#include "transcode/v1/transcoder.grpc.pb.h"

namespace fs = std::filesystem;
namespace pb = transcode::v1;
using namespace tc::test;
using tc::read_file_or_empty;

namespace {

class Hardening : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(media);
    ASSERT_TRUE(make_clip(input));
  }

  std::unique_ptr<pb::Transcoder::Stub> stub() {
    return pb::Transcoder::NewStub(
        grpc::CreateChannel(daemon.address(), grpc::InsecureChannelCredentials()));
  }
  pb::CreateJobRequest request_for(const std::string& out) {
    pb::CreateJobRequest request;
    request.mutable_config()->set_input(input);
    request.mutable_config()->add_outputs()->set_path(out);
    return request;
  }
  grpc::Status create(const pb::CreateJobRequest& request, pb::Job* job = nullptr) {
    grpc::ClientContext context;
    pb::Job ignored;
    return stub()->CreateJob(&context, request, job ? job : &ignored);
  }
  // The daemon binary run by hand with `args`: its exit status; its stderr in `err`. A daemon
  // that serves instead of exiting is stopped by `timeout` (status 124).
  int run_daemon(const std::string& args, std::string& err, const std::string& prefix = "") {
    std::string err_file = dir.path() + "/daemon.err";
    int status = shell("timeout 30 " + prefix + env_or_die("TRANSCODED") +
                       " --listen 127.0.0.1:0 " + args + " </dev/null >/dev/null 2>" + err_file);
    err = read_file_or_empty(err_file);
    return status;
  }

  TempDir dir;
  std::string media = dir.path() + "/media";
  std::string state = dir.path() + "/state";
  std::string input = media + "/in.mp4";
  std::string database = state + "/jobs.sqlite3";
  Daemon daemon{state, media};
};

void expect_reason(const grpc::Status& status, grpc::StatusCode code, pb::Reason reason,
                   const std::string& field) {
  EXPECT_EQ(status.error_code(), code) << status.error_message();
  std::optional<pb::ErrorDetail> detail = tc::client::error_detail(status);
  ASSERT_TRUE(detail.has_value()) << status.error_message();
  EXPECT_EQ(pb::Reason_Name(detail->reason()), pb::Reason_Name(reason));
  EXPECT_EQ(detail->field(), field);
}

// Before: the daemon served, and every CreateJob and ListJobs failed INTERNAL.
TEST_F(Hardening, DamagedDatabaseExitsNamingTheFileAndStartsFreshOnceMovedAside) {
  ASSERT_TRUE(daemon.start());
  ASSERT_TRUE(create(request_for(media + "/a.mp4")).ok());
  daemon.stop(SIGTERM);
  // Page 2 onwards (the jobs table) overwritten; page 1 (the header and schema) intact.
  {
    std::fstream file(database, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(4096);
    std::string garbage(8192, '\xa5');
    file.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  std::string err;
  std::string args = "--state-dir " + state + " --media-root " + media;
  EXPECT_EQ(run_daemon(args, err), 3) << err;
  EXPECT_NE(err.find(database + " is damaged"), std::string::npos) << err;
  EXPECT_NE(err.find("move it aside"), std::string::npos) << err;
  // The documented recovery: move the file aside; the daemon starts with no jobs.
  fs::rename(database, database + ".damaged");
  ASSERT_TRUE(daemon.start());
  grpc::ClientContext context;
  pb::ListJobsResponse jobs;
  ASSERT_TRUE(stub()->ListJobs(&context, pb::ListJobsRequest(), &jobs).ok());
  EXPECT_EQ(jobs.jobs_size(), 0);
}

// Root writes through any file mode: the daemon runs as nobody here, over a database nobody
// owns but may not write. Before: the daemon served, and CreateJob failed INTERNAL.
TEST_F(Hardening, UnwritableDatabaseExitsNamingTheFile) {
  ASSERT_TRUE(daemon.start());
  daemon.stop(SIGTERM);
  ASSERT_TRUE(fs::exists(database));
  ::chmod(dir.path().c_str(), 0755);
  ASSERT_EQ(shell("chown -R nobody " + state + " && chmod 0444 " + database), 0);
  std::string err;
  int status = run_daemon("--state-dir " + state + " --media-root " + media, err,
                          "setpriv --reuid=nobody --regid=nogroup --clear-groups ");
  EXPECT_EQ(status, 6) << err;
  EXPECT_NE(err.find(database + " is not writable"), std::string::npos) << err;
}

// Before: no limit; 15 jobs of 10,000 labels made every later ListJobs too big to send.
TEST_F(Hardening, LabelsPathsAndIdsAreBoundedAsTooLarge) {
  ASSERT_TRUE(daemon.start());
  auto kInvalid = grpc::StatusCode::INVALID_ARGUMENT;
  pb::CreateJobRequest many = request_for(media + "/many.mp4");
  for (int i = 0; i < 10000; ++i) (*many.mutable_labels())["k" + std::to_string(i)] = "v";
  expect_reason(create(many), kInvalid, pb::TOO_LARGE, "labels");
  pb::CreateJobRequest long_value = request_for(media + "/long.mp4");
  (*long_value.mutable_labels())["team"] = std::string(300, 'x');
  expect_reason(create(long_value), kInvalid, pb::TOO_LARGE, "labels['team']");
  pb::CreateJobRequest long_id = request_for(media + "/id.mp4");
  long_id.set_request_id(std::string(1000, 'r'));
  expect_reason(create(long_id), kInvalid, pb::TOO_LARGE, "request_id");
  // A 3 MB path: refused by size, not echoed whole (that overflowed gRPC's metadata).
  pb::CreateJobRequest long_path = request_for(media + "/" + std::string(3'000'000, 'p'));
  grpc::Status path_status = create(long_path);
  expect_reason(path_status, kInvalid, pb::TOO_LARGE, "config.outputs[0].path");
  EXPECT_LT(path_status.error_message().size(), 1000u);
  // A 1 MB job id: before, RESOURCE_EXHAUSTED (the reply's metadata was too big).
  grpc::ClientContext context;
  pb::GetJobRequest get;
  get.set_id(std::string(1'000'000, 'j'));
  pb::Job job;
  grpc::Status get_status = stub()->GetJob(&context, get, &job);
  expect_reason(get_status, kInvalid, pb::TOO_LARGE, "id");
  EXPECT_LT(get_status.error_message().size(), 1000u);
  // Within the bounds: accepted, labels kept.
  pb::CreateJobRequest fine = request_for(media + "/fine.mp4");
  for (int i = 0; i < 64; ++i) (*fine.mutable_labels())["k" + std::to_string(i)] = "v";
  pb::Job created;
  ASSERT_TRUE(create(fine, &created).ok());
  EXPECT_EQ(created.labels_size(), 64);
}

// `wire` sent as the request of `method` (a streaming method's refusal arrives as its status).
grpc::Status call_raw(const std::string& address, const google::protobuf::MethodDescriptor& method,
                      const std::string& wire) {
  grpc::GenericStub stub(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  grpc::CompletionQueue queue;
  grpc::ClientContext context;
  grpc::Slice slice(wire);
  grpc::ByteBuffer request(&slice, 1), reply;
  auto call = stub.PrepareUnaryCall(
      &context, "/" + method.service()->full_name() + "/" + method.name(), request, &queue);
  call->StartCall();
  grpc::Status status;
  call->Finish(&reply, &status, nullptr);
  void* tag;
  bool ok;
  queue.Next(&tag, &ok);
  return status;
}

// Before: invalid UTF-8 answered UNIMPLEMENTED naming nothing, and a NUL passed where a field
// had no check of its own. Every string field of every method, found from the descriptors.
TEST_F(Hardening, EveryStringOfTheApiRefusesNulAndInvalidUtf8AsInvalidArgumentNamingIt) {
  ASSERT_TRUE(daemon.start());
  const google::protobuf::ServiceDescriptor& service =
      *pb::CreateJobRequest::descriptor()->file()->FindServiceByName("Transcoder");
  for (const StringFieldCase& field : every_string_field(service)) {
    for (const std::string& bad : {std::string("x\0.mp4", 6), std::string("caf\xe9.mp4")}) {
      SCOPED_TRACE(field.method->name() + " " + field.field);
      std::unique_ptr<google::protobuf::Message> request(
          google::protobuf::MessageFactory::generated_factory()
              ->GetPrototype(field.method->input_type())
              ->New());
      field.set(*request, bad);
      expect_reason(call_raw(daemon.address(), *field.method, request->SerializePartialAsString()),
                    grpc::StatusCode::INVALID_ARGUMENT, pb::INVALID_FIELD, field.field);
    }
  }
  // The daemon still serves: a good request is accepted.
  EXPECT_TRUE(create(request_for(media + "/fine.mp4")).ok());
}

// A source of 100 empty audio tracks (a few KB) failed INTERNAL after the worker opened 100
// encoders; it is an input error now, named, and the daemon serves on.
TEST_F(Hardening, ASourceOfAHundredAudioTracksFailsAsInputNamingTheCount) {
  ASSERT_TRUE(daemon.start());
  std::string many = media + "/many.mkv";
  std::string make =
      "ffmpeg -v error -f lavfi -i anullsrc=d=0.2 -f lavfi -i color=s=64x64:d=0.2 "
      "-map 1:v";
  for (int i = 0; i < 100; ++i) make += " -map 0:a";
  ASSERT_EQ(shell(make + " -c:a pcm_s16le -shortest " + many), 0);
  pb::CreateJobRequest request = request_for(media + "/many_out.mkv");
  request.mutable_config()->set_input(many);
  pb::Job job;
  ASSERT_TRUE(create(request, &job).ok());
  pb::Job ended;
  ASSERT_TRUE(wait_until([&] {
    grpc::ClientContext context;
    pb::GetJobRequest get;
    get.set_id(job.id());
    return stub()->GetJob(&context, get, &ended).ok() && ended.state() == pb::JOB_STATE_FAILED;
  }));
  EXPECT_EQ(ended.error().code(), pb::ERROR_CODE_INPUT);
  EXPECT_NE(ended.error().message().find("100 audio tracks"), std::string::npos)
      << ended.error().message();
  EXPECT_FALSE(fs::exists(media + "/many_out.mkv"));
  EXPECT_TRUE(create(request_for(media + "/after.mp4")).ok());
}

// Before: one page held page_size jobs whatever their size (up to 500: over 4 MB with labels).
TEST_F(Hardening, ListJobsPagesByBytesAsWellAsCount) {
  std::string slow = media + "/slow_in.mp4";
  ASSERT_TRUE(make_clip(slow, 3));
  ASSERT_TRUE(daemon.start({"--slots", "1"}, "slow:slow_"));
  const int kJobs = 80;  // about 17 KB of labels each: 1.4 MB in all
  for (int i = 0; i < kJobs; ++i) {
    pb::CreateJobRequest request = request_for(media + "/o" + std::to_string(i) + ".mp4");
    request.mutable_config()->set_input(slow);
    for (int l = 0; l < 64; ++l)
      (*request.mutable_labels())["label" + std::to_string(l)] = std::string(256, 'a' + l % 26);
    ASSERT_TRUE(create(request).ok()) << i;
  }
  std::set<std::string> seen;
  std::string token;
  int pages = 0;
  do {
    grpc::ClientContext context;
    pb::ListJobsRequest request;
    request.set_page_size(500);
    request.set_page_token(token);
    pb::ListJobsResponse page;
    grpc::Status status = stub()->ListJobs(&context, request, &page);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_LE(page.ByteSizeLong(), size_t{1} << 20);
    EXPECT_GT(page.jobs_size(), 0);
    for (const pb::Job& job : page.jobs()) seen.insert(job.id());
    token = page.next_page_token();
    ++pages;
  } while (!token.empty() && pages < 10);
  EXPECT_EQ(static_cast<int>(seen.size()), kJobs);
  EXPECT_GE(pages, 2);
}

// One rule for every entry point: a bitrate with the default rate control means VBR (the CLI's
// --bitrate always did; over the API it was left at the default quality mode and ignored). The
// output's bitrate is the check: this clip's video is ~280 kb/s in the quality mode, ~62 kb/s
// asked for 60 kb/s.
TEST_F(Hardening, BitrateWithoutRateControlIsVbrOverTheApi) {
  ASSERT_TRUE(daemon.start());
  std::string out = media + "/vbr.mp4";
  pb::CreateJobRequest request = request_for(out);
  request.mutable_config()->mutable_outputs(0)->set_bitrate(60000);
  pb::Job job;
  grpc::Status status = create(request, &job);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(job.config().outputs(0).rate_control(), "vbr");
  pb::Job now;
  ASSERT_TRUE(wait_until([&] {
    grpc::ClientContext context;
    pb::GetJobRequest get;
    get.set_id(job.id());
    return stub()->GetJob(&context, get, &now).ok() &&
           (now.state() == pb::JOB_STATE_SUCCEEDED || now.state() == pb::JOB_STATE_FAILED);
  }));
  ASSERT_EQ(now.state(), pb::JOB_STATE_SUCCEEDED) << now.DebugString();
  std::string probed = dir.path() + "/bit_rate.txt";
  ASSERT_EQ(shell("ffprobe -v error -select_streams v:0 -show_entries stream=bit_rate -of "
                  "csv=p=0 '" +
                  out + "' > '" + probed + "'"),
            0);
  long bit_rate = std::atol(read_file_or_empty(probed).c_str());
  EXPECT_GT(bit_rate, 45000);
  EXPECT_LT(bit_rate, 80000);
}

// Before: start 1e300 overflowed to a start of 0 and transcoded the whole input; a 2x100000
// output (within max_pixels) failed INTERNAL in the worker.
TEST_F(Hardening, HugeTrimsAndOverlongSidesAreInvalidArguments) {
  ASSERT_TRUE(daemon.start({"--max-pixels", "0"}));
  auto kInvalid = grpc::StatusCode::INVALID_ARGUMENT;
  pb::CreateJobRequest start = request_for(media + "/start.mp4");
  start.mutable_config()->set_start_s(1e300);
  expect_reason(create(start), kInvalid, pb::INVALID_FIELD, "config.start_s");
  pb::CreateJobRequest duration = request_for(media + "/duration.mp4");
  duration.mutable_config()->set_duration_s(1e300);
  expect_reason(create(duration), kInvalid, pb::INVALID_FIELD, "config.duration_s");
  pb::CreateJobRequest tall = request_for(media + "/tall.mp4");
  tall.mutable_config()->mutable_outputs(0)->set_width(2);
  tall.mutable_config()->mutable_outputs(0)->set_height(100000);
  grpc::Status status = create(tall);
  expect_reason(status, kInvalid, pb::INVALID_FIELD, "config.outputs[0]");
  EXPECT_NE(status.error_message().find("16384"), std::string::npos) << status.error_message();
}

// A newline in a file name must not forge a log line, and the reply's message escapes it too.
TEST_F(Hardening, UserValuesInMessagesAndLogsAreEscaped) {
  std::string log = dir.path() + "/daemon.log";
  daemon.log_to(log);
  ASSERT_TRUE(daemon.start({"--log-level", "info"}));
  std::string forged = media + "/x.mp4\nERROR forged line";
  grpc::Status missing = create([&] {
    pb::CreateJobRequest request = request_for(media + "/o.mp4");
    request.mutable_config()->set_input(forged);
    return request;
  }());
  EXPECT_EQ(missing.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(missing.error_message().find("x.mp4\\nERROR forged line"), std::string::npos)
      << missing.error_message();
  // An input that exists under such a name: the job is queued and logged with it.
  std::string odd = media + "/odd\nERROR forged.mp4";
  fs::copy_file(input, odd);
  pb::CreateJobRequest request = request_for(media + "/odd_out.mp4");
  request.mutable_config()->set_input(odd);
  ASSERT_TRUE(create(request).ok());
  daemon.stop(SIGTERM);
  std::string text = read_file_or_empty(log);
  EXPECT_NE(text.find("odd\\nERROR forged.mp4"), std::string::npos) << text;
  EXPECT_EQ(("\n" + text).find("\nERROR forged"), std::string::npos) << text;
}

// Issue 36: a worker's libav lines reached the daemon's log as they were. Each is one escaped
// line now, naming its job: here a truncated input and an output both named with a newline and
// "succeeded", whose demuxer error the worker logs.
TEST_F(Hardening, AWorkersLogLinesAreEscapedAndNameTheirJob) {
  std::string log = dir.path() + "/daemon.log";
  daemon.log_to(log);
  ASSERT_TRUE(daemon.start({"--log-level", "info"}));
  std::string broken = media + "/in\njob j-forged: succeeded.mp4";
  std::string whole = read_file_or_empty(input);
  std::ofstream(broken, std::ios::binary) << whole.substr(0, whole.size() / 3);
  pb::CreateJobRequest request = request_for(media + "/out\njob j-forged: succeeded.mp4");
  request.mutable_config()->set_input(broken);
  pb::Job job;
  ASSERT_TRUE(create(request, &job).ok());
  ASSERT_TRUE(wait_until([&] {
    grpc::ClientContext context;
    pb::GetJobRequest get;
    get.set_id(job.id());
    pb::Job now;
    return stub()->GetJob(&context, get, &now).ok() && now.state() == pb::JOB_STATE_FAILED;
  }));
  daemon.stop(SIGTERM);
  std::string text = read_file_or_empty(log);
  EXPECT_EQ(("\n" + text).find("\njob j-forged"), std::string::npos) << text;
  // libav's own line: "moov atom not found", as the worker of this job logged it.
  size_t libav = text.find("moov atom not found");
  ASSERT_NE(libav, std::string::npos) << text;
  size_t line_start = text.rfind('\n', libav) + 1;  // npos + 1 = 0: the first line
  EXPECT_EQ(text.substr(line_start, libav - line_start).rfind("worker: job " + job.id() + ": ", 0),
            0u)
      << text;
}

}  // namespace
