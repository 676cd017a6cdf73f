// A real daemon, driven by the real `transcode` client (and, for exact status codes, a gRPC
// stub): the job lifecycle, concurrency, worker faults, restart recovery and bad requests.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <nlohmann/json.hpp>
#include <set>

#include "daemon_fixture.h"
#include "transcode/v1/transcoder.grpc.pb.h"

namespace fs = std::filesystem;
namespace pb = transcode::v1;
using nlohmann::json;
using namespace tc::test;

namespace {

class DaemonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    media = dir.path() + "/media";
    state = dir.path() + "/state";
    fs::create_directories(media);
    input = media + "/in.mp4";
    ASSERT_TRUE(make_clip(input));
  }

  std::vector<std::string> with_server(std::vector<std::string> args) {
    args.push_back("--server");
    args.push_back(daemon.address());
    return args;
  }
  CommandResult client(std::vector<std::string> args) { return run_client(with_server(args)); }

  std::string submit(const std::string& in, const std::string& out,
                     std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"submit", in, out};
    args.insert(args.end(), extra.begin(), extra.end());
    CommandResult r = client(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out.substr(0, r.out.find('\n'));
  }

  json get_json(const std::string& id) {
    CommandResult r = client({"get", id, "--json"});
    if (r.exit_code != 0) return json::object();
    return json::parse(r.out, nullptr, false);
  }

  std::string state_of(const std::string& id) { return get_json(id).value("state", ""); }

  std::unique_ptr<pb::Transcoder::Stub> stub() {
    return pb::Transcoder::NewStub(
        grpc::CreateChannel(daemon.address(), grpc::InsecureChannelCredentials()));
  }

  TempDir dir;
  std::string media, state, input;
  Daemon daemon{dir.path() + "/state", dir.path() + "/media"};
};

TEST_F(DaemonTest, LoopbackCreateWatchGetHealthCaps) {
  ASSERT_TRUE(daemon.start());
  std::string out = media + "/out.mp4";
  std::string id = submit(input, out, {"--size", "160x120", "--label", "team=video"});
  ASSERT_FALSE(id.empty());

  CommandResult watched = client({"watch", id});
  EXPECT_EQ(watched.exit_code, 0) << watched.err;
  EXPECT_NE(watched.out.find(out), std::string::npos) << watched.out;  // the report
  EXPECT_GT(video_frames(out), 0);

  json job = get_json(id);
  EXPECT_EQ(job.value("state", ""), "JOB_STATE_SUCCEEDED");
  EXPECT_EQ(job["labels"]["team"], "video");
  EXPECT_EQ(job["result"]["outputs"][0]["width"], 160);
  EXPECT_TRUE(job.contains("end_time"));
  CommandResult human = client({"get", id});
  EXPECT_EQ(human.exit_code, 0);
  EXPECT_NE(human.out.find("succeeded"), std::string::npos);

  EXPECT_EQ(client({"health"}).exit_code, 0);
  CommandResult caps = client({"caps"});
  EXPECT_EQ(caps.exit_code, 0) << caps.err;
  EXPECT_NE(caps.out.find("software"), std::string::npos);
  EXPECT_TRUE(partial_files(media).empty());
}

TEST_F(DaemonTest, UnixSocketSubmitWait) {
  ASSERT_TRUE(daemon.start({}, "", "unix:" + dir.path() + "/d.sock"));
  std::string out = media + "/unix.mkv";
  CommandResult r = client({"submit", input, out, "--wait", "--quiet"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(video_frames(out), 0);
  EXPECT_EQ(client({"health"}).exit_code, 0);
}

TEST_F(DaemonTest, ListPagesThroughEveryJob) {
  ASSERT_TRUE(daemon.start());
  std::set<std::string> submitted;
  for (int i = 0; i < 5; ++i)
    submitted.insert(submit(input, media + "/p" + std::to_string(i) + ".mp4"));
  for (const std::string& id : submitted) EXPECT_EQ(client({"watch", id, "--quiet"}).exit_code, 0);

  std::set<std::string> listed;
  std::string token;
  int pages = 0;
  do {
    std::vector<std::string> args = {"jobs", "--limit", "2", "--json"};
    if (!token.empty()) args.insert(args.end(), {"--page-token", token});
    CommandResult r = client(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    json page = json::parse(r.out);
    EXPECT_LE(page["jobs"].size(), 2u);
    for (const json& job : page["jobs"]) listed.insert(job["id"].get<std::string>());
    token = page.value("next_page_token", "");
    ++pages;
  } while (!token.empty() && pages < 10);
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(listed, submitted);
  CommandResult running = client({"jobs", "--state", "running", "--json"});
  EXPECT_EQ(running.exit_code, 0);
  EXPECT_FALSE(json::parse(running.out).contains("jobs"));
}

TEST_F(DaemonTest, CancelMidRunLeavesNothing) {
  ASSERT_TRUE(daemon.start({}, "slow:slow_"));
  std::string slow_input = media + "/slow_in.mp4";
  ASSERT_TRUE(make_clip(slow_input, 3));
  std::string out = media + "/cancelled.mp4";
  std::string id = submit(slow_input, out);
  ASSERT_TRUE(wait_until([&] {
    json job = get_json(id);
    return job.value("state", "") == "JOB_STATE_RUNNING" &&
           job["progress"].value("frames_decoded", "0") != "0";
  }));
  CommandResult cancel = client({"cancel", id});
  EXPECT_EQ(cancel.exit_code, 0) << cancel.err;
  EXPECT_EQ(client({"watch", id, "--quiet"}).exit_code, 130);
  json job = get_json(id);
  EXPECT_EQ(job.value("state", ""), "JOB_STATE_CANCELLED");
  EXPECT_EQ(job["error"].value("code", ""), "ERROR_CODE_CANCELLED");
  EXPECT_FALSE(fs::exists(out));
  EXPECT_TRUE(partial_files(media).empty());
  // A finished job cannot be cancelled again.
  CommandResult again = client({"cancel", id});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("FAILED_PRECONDITION"), std::string::npos);
}

TEST_F(DaemonTest, TwentyConcurrentJobsAllSucceed) {
  ASSERT_TRUE(daemon.start({"--slots", "2"}));
  std::vector<std::future<CommandResult>> clients;
  for (int i = 0; i < 20; ++i) {
    std::string out = media + "/c" + std::to_string(i) + ".mp4";
    clients.push_back(std::async(std::launch::async, [this, out] {
      return client({"submit", input, out, "--size", "160x120", "--wait", "--quiet"});
    }));
  }
  for (int i = 0; i < 20; ++i) {
    CommandResult r = clients[i].get();
    EXPECT_EQ(r.exit_code, 0) << "job " << i << ": " << r.err;
    EXPECT_GT(video_frames(media + "/c" + std::to_string(i) + ".mp4"), 0) << i;
  }
  EXPECT_TRUE(partial_files(media).empty());
}

TEST_F(DaemonTest, CrashedWorkerFailsOnlyItsJob) {
  ASSERT_TRUE(daemon.start({}, "crash:crashme"));
  std::string crash_input = media + "/crashme.mp4";
  fs::copy_file(input, crash_input);
  CommandResult crashed = client({"submit", crash_input, media + "/x.mp4", "--wait", "--quiet"});
  EXPECT_EQ(crashed.exit_code, 1) << crashed.err;
  EXPECT_NE(crashed.err.find("SIGSEGV"), std::string::npos) << crashed.err;
  EXPECT_EQ(client({"health"}).exit_code, 0);
  CommandResult fine = client({"submit", input, media + "/fine.mp4", "--wait", "--quiet"});
  EXPECT_EQ(fine.exit_code, 0) << fine.err;
}

TEST_F(DaemonTest, StalledWorkerIsKilledByTheWatchdog) {
  ASSERT_TRUE(daemon.start({"--stall-timeout", "2"}, "stall:stallme"));
  std::string stall_input = media + "/stallme.mp4";
  fs::copy_file(input, stall_input);
  CommandResult stalled = client({"submit", stall_input, media + "/y.mp4", "--wait", "--quiet"});
  EXPECT_EQ(stalled.exit_code, 1) << stalled.err;
  EXPECT_NE(stalled.err.find("watchdog"), std::string::npos) << stalled.err;
  EXPECT_EQ(client({"health"}).exit_code, 0);
}

TEST_F(DaemonTest, KillNineMidJobThenRestartRunsItAgain) {
  ASSERT_TRUE(daemon.start({}, "slow:slow_"));
  std::string slow_input = media + "/slow_in.mp4";
  ASSERT_TRUE(make_clip(slow_input, 3));
  std::string out = media + "/again.mp4";
  std::string id = submit(slow_input, out);
  ASSERT_TRUE(wait_until([&] { return !partial_files(media).empty(); }));
  daemon.stop(SIGKILL);
  // The worker dies with its daemon (parent-death signal); give the kernel a moment to reap.
  ASSERT_TRUE(daemon.start());
  CommandResult watched = client({"watch", id, "--quiet"});
  EXPECT_EQ(watched.exit_code, 0) << watched.err;
  json job = get_json(id);
  EXPECT_EQ(job.value("state", ""), "JOB_STATE_SUCCEEDED");
  EXPECT_EQ(job.value("attempt", 0), 2);
  EXPECT_EQ(video_frames(out), 90);
  EXPECT_TRUE(partial_files(media).empty());
}

TEST_F(DaemonTest, GracefulShutdownLeavesRunningJobQueued) {
  ASSERT_TRUE(daemon.start({"--shutdown-grace", "0"}, "slow:slow_"));
  std::string slow_input = media + "/slow_in.mp4";
  ASSERT_TRUE(make_clip(slow_input, 3));
  std::string out = media + "/later.mp4";
  std::string id = submit(slow_input, out);
  ASSERT_TRUE(wait_until([&] { return state_of(id) == "JOB_STATE_RUNNING"; }));
  int status = daemon.stop(SIGTERM);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_TRUE(partial_files(media).empty());
  ASSERT_TRUE(daemon.start());
  EXPECT_EQ(client({"watch", id, "--quiet"}).exit_code, 0);
  EXPECT_EQ(get_json(id).value("attempt", 0), 1);  // a shutdown costs the job no attempt
  EXPECT_GT(video_frames(out), 0);
}

TEST_F(DaemonTest, BadRequestsGetExactCodes) {
  fs::create_directories(dir.path() + "/outside");
  std::string outside = dir.path() + "/outside/in.mp4";
  fs::copy_file(input, outside);
  fs::create_symlink(outside, media + "/link.mp4");
  fs::create_directory_symlink(dir.path() + "/outside", media + "/escape");
  ASSERT_TRUE(
      daemon.start({"--max-outputs", "2", "--max-queue", "1", "--slots", "1"}, "slow:slow_"));
  auto s = stub();
  auto create = [&](const std::string& in, std::vector<std::string> outs,
                    const std::string& codec = "") {
    pb::CreateJobRequest request;
    request.mutable_config()->set_input(in);
    for (const std::string& o : outs) {
      pb::OutputConfig* output = request.mutable_config()->add_outputs();
      output->set_path(o);
      output->set_codec(codec);
    }
    grpc::ClientContext context;
    pb::Job job;
    return s->CreateJob(&context, request, &job);
  };
  std::string out = media + "/bad.mp4";
  struct Case {
    grpc::Status status;
    grpc::StatusCode code;
    std::string names;  // the field or setting the message must name
  };
  std::vector<Case> cases = {
      {create(outside, {out}), grpc::StatusCode::PERMISSION_DENIED, "input"},
      {create(media + "/../outside/in.mp4", {out}), grpc::StatusCode::PERMISSION_DENIED, "input"},
      {create(media + "/link.mp4", {out}), grpc::StatusCode::PERMISSION_DENIED, "input"},
      {create(input, {media + "/escape/o.mp4"}), grpc::StatusCode::PERMISSION_DENIED, "outputs[0]"},
      {create(input, {dir.path() + "/o.mp4"}), grpc::StatusCode::PERMISSION_DENIED, "outputs[0]"},
      {create(input, {out}, "h266"), grpc::StatusCode::INVALID_ARGUMENT, "codec"},
      {create(media + "/missing.mp4", {out}), grpc::StatusCode::INVALID_ARGUMENT, "input"},
      {create(input, {}), grpc::StatusCode::INVALID_ARGUMENT, "outputs"},
      {create(input, {out, media + "/b.mp4", media + "/c.mp4"}), grpc::StatusCode::INVALID_ARGUMENT,
       "max_outputs"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(cases[i].status.error_code(), cases[i].code)
        << "case " << i << ": " << cases[i].status.error_message();
    EXPECT_NE(cases[i].status.error_message().find(cases[i].names), std::string::npos)
        << "case " << i << ": " << cases[i].status.error_message();
  }

  grpc::ClientContext get_context;
  pb::GetJobRequest get;
  get.set_id("j-nope");
  pb::Job job;
  EXPECT_EQ(s->GetJob(&get_context, get, &job).error_code(), grpc::StatusCode::NOT_FOUND);
  CommandResult missing = client({"get", "j-nope"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("NOT_FOUND"), std::string::npos);

  // One slot, a queue of one: a slow job runs, one waits, the next is refused.
  std::string slow_input = media + "/slow_in.mp4";
  ASSERT_TRUE(make_clip(slow_input, 3));
  std::string running = submit(slow_input, media + "/q1.mp4");
  ASSERT_TRUE(wait_until([&] { return state_of(running) == "JOB_STATE_RUNNING"; }));
  std::string queued = submit(slow_input, media + "/q2.mp4");
  grpc::Status full = create(slow_input, {media + "/q3.mp4"});
  EXPECT_EQ(full.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << full.error_message();
  EXPECT_NE(full.error_message().find("max_queue"), std::string::npos);
  EXPECT_EQ(client({"cancel", queued}).exit_code, 0);
  EXPECT_EQ(client({"cancel", running}).exit_code, 0);
}

TEST_F(DaemonTest, SourceLargerThanThePixelCapFailsItsJob) {
  ASSERT_TRUE(daemon.start({"--max-pixels", std::to_string(160 * 120)}));
  CommandResult r = client({"submit", input, media + "/big.mp4", "--wait", "--quiet"});
  EXPECT_EQ(r.exit_code, 2) << r.err;  // the job failed: invalid argument
  EXPECT_NE(r.err.find("max_pixels"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(media + "/big.mp4"));
}

TEST_F(DaemonTest, RetriedCreateWithRequestIdReturnsTheSameJob) {
  ASSERT_TRUE(daemon.start());
  std::string first = submit(input, media + "/r.mp4", {"--request-id", "retry-1"});
  std::string second = submit(input, media + "/r.mp4", {"--request-id", "retry-1"});
  EXPECT_EQ(first, second);
  EXPECT_EQ(client({"watch", first, "--quiet"}).exit_code, 0);
}

TEST_F(DaemonTest, BadSettingsExitTwoNamingTheSetting) {
  CommandResult r;
  int status = shell(env_or_die("TRANSCODED") + " --max-queue 0 --state-dir " + state + " 2>" +
                     dir.path() + "/err");
  EXPECT_EQ(status, 2);
  status = shell(env_or_die("TRANSCODED") + " --media-root /no/such/dir --state-dir " + state +
                 " 2>>" + dir.path() + "/err");
  EXPECT_EQ(status, 2);
  std::ifstream err(dir.path() + "/err");
  std::string text((std::istreambuf_iterator<char>(err)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("max_queue"), std::string::npos) << text;
  EXPECT_NE(text.find("media_root"), std::string::npos) << text;
}

}  // namespace

namespace {

// A self-signed certificate for 127.0.0.1, made by the openssl CLI.
bool make_certificate(const std::string& dir, const std::string& name) {
  return shell("openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=" + name +
               " -addext subjectAltName=IP:127.0.0.1,DNS:localhost -keyout " + dir + "/" + name +
               ".key -out " + dir + "/" + name + ".crt 2>/dev/null") == 0;
}

TEST_F(DaemonTest, TlsAndBearerToken) {
  ASSERT_TRUE(make_certificate(dir.path(), "server"));
  ASSERT_TRUE(make_certificate(dir.path(), "client"));
  std::string token_file = dir.path() + "/token";
  std::ofstream(token_file) << "s3cret\n";
  ASSERT_TRUE(daemon.start({"--tls-cert", dir.path() + "/server.crt", "--tls-key",
                            dir.path() + "/server.key", "--tls-client-ca",
                            dir.path() + "/client.crt", "--auth-token-file", token_file}));
  std::vector<std::string> tls = {"--tls-ca",   dir.path() + "/server.crt",
                                  "--tls-cert", dir.path() + "/client.crt",
                                  "--tls-key",  dir.path() + "/client.key"};
  auto with = [&](std::vector<std::string> args, std::vector<std::string> extra) {
    args.insert(args.end(), extra.begin(), extra.end());
    return client(args);
  };
  // Plain text to a TLS port: unreachable.
  EXPECT_EQ(client({"jobs"}).exit_code, 7);
  // TLS without a client certificate: the mTLS handshake fails.
  EXPECT_EQ(with({"jobs"}, {"--tls-ca", dir.path() + "/server.crt"}).exit_code, 7);
  // TLS and mTLS, no token.
  CommandResult no_token = with({"jobs"}, tls);
  EXPECT_EQ(no_token.exit_code, 2);
  EXPECT_NE(no_token.err.find("UNAUTHENTICATED"), std::string::npos) << no_token.err;
  std::string wrong_file = dir.path() + "/wrong";
  std::ofstream(wrong_file) << "guess\n";
  std::vector<std::string> wrong = tls;
  wrong.insert(wrong.end(), {"--token-file", wrong_file});
  EXPECT_EQ(with({"jobs"}, wrong).exit_code, 2);
  std::vector<std::string> good = tls;
  good.insert(good.end(), {"--token-file", token_file});
  EXPECT_EQ(with({"health"}, good).exit_code, 0);
  CommandResult done = with({"submit", input, media + "/tls.mp4", "--wait", "--quiet"}, good);
  EXPECT_EQ(done.exit_code, 0) << done.err;
  EXPECT_GT(video_frames(media + "/tls.mp4"), 0);
}

}  // namespace
