// A real daemon, driven by the real `transcode` client (and, for exact status codes, a gRPC
// stub): the job lifecycle, concurrency, worker faults, restart recovery and bad requests.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "daemon_fixture.h"
#include "pipeline/core/file.h"
#include "service/client/error_details.h"
#include "tests/support/corpus.h"
#include "tests/support/source_version.h"
#include "transcode/v1/transcoder.grpc.pb.h"

namespace fs = std::filesystem;
namespace pb = transcode::v1;
using nlohmann::json;
using namespace tc::test;
using tc::read_file_or_empty;

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

// The node's gop_parallel reaches every job's worker that leaves it to the node, and a job's
// own overrides it: 3 s of 30 fps in 2 s GOPs is two chunks when asked for 3 encoders (auto
// on this machine's cores would keep one; 0 is auto), one when the job asks for one encoder.
TEST_F(DaemonTest, GopParallelSettingCutsEveryJobsOutputsAJobsOwnOverridesIt) {
  std::string long_input = media + "/long.mp4";
  ASSERT_TRUE(make_clip(long_input, 3));
  ASSERT_TRUE(daemon.start({"--gop-parallel", "3"}));
  for (auto [gop_parallel, chunks] : {std::pair{"0", "2"}, std::pair{"1", "1"}}) {
    std::string out = media + "/cut" + gop_parallel + ".mp4";
    std::string id = submit(long_input, out, {"--size", "160x120", "--gop-parallel", gop_parallel});
    ASSERT_FALSE(id.empty());
    EXPECT_EQ(client({"watch", id}).exit_code, 0);
    json job = get_json(id);
    ASSERT_EQ(job.value("state", ""), "JOB_STATE_SUCCEEDED") << job.dump();
    EXPECT_EQ(job["config"].value("gop_parallel", 0), std::stoi(gop_parallel)) << job.dump();
    EXPECT_EQ(job["result"]["outputs"][0].value("chunks", ""), chunks) << job.dump();
    EXPECT_EQ(video_frames(out), 90);
  }
}

// A worker under Landlock (the default) keeps the kernels its GPU driver compiled where the next
// job finds them: the daemon's GPU kernel cache, not $HOME, which Landlock keeps it from
// opening. Mesa's lavapipe compiles the Vulkan scaler's shaders there.
TEST_F(DaemonTest, AWorkerKeepsItsCompiledGpuKernelsForTheNextJob) {
  ASSERT_TRUE(daemon.start());
  std::string out = media + "/vulkan.mp4";
  std::string id = submit(input, out, {"--backend", "vulkan", "--size", "160x120"});
  ASSERT_FALSE(id.empty());
  CommandResult watched = client({"watch", id});
  json job = get_json(id);
  if (job.value("error", json::object()).value("code", "") == "ERROR_CODE_DEVICE")
    GTEST_SKIP() << "no Vulkan device here: " << job.dump();
  EXPECT_EQ(watched.exit_code, 0) << watched.err;
  ASSERT_EQ(job.value("state", ""), "JOB_STATE_SUCCEEDED") << job.dump();
  namespace fs = std::filesystem;
  fs::path mesa = fs::path(state) / "gpu-cache" / "mesa";
  size_t files = 0;
  if (fs::is_directory(mesa))
    for (const auto& entry : fs::recursive_directory_iterator(mesa))
      files += entry.is_regular_file();
  EXPECT_GT(files, 0u) << "nothing in " << mesa;
}

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

// Every audio and subtitle track through the daemon; GetJob's result lists what became of
// each input stream.
TEST_F(DaemonTest, EveryTrackKeptAndTheResultSaysWhatBecameOfEach) {
  ASSERT_TRUE(daemon.start());
  std::string in = media + "/tracks.mkv";
  tc::testing::make_multitrack_clip(in);
  std::string out = media + "/tracks.mp4";
  std::string id = submit(in, "-o", {out, "-o", media + "/tracks.ts"});
  ASSERT_FALSE(id.empty());
  CommandResult watched = client({"watch", id});
  EXPECT_EQ(watched.exit_code, 0) << watched.err;
  EXPECT_NE(watched.out.find("dropped: MPEG-TS cannot carry text subtitles"), std::string::npos)
      << watched.out;
  json job = get_json(id);
  ASSERT_EQ(job.value("state", ""), "JOB_STATE_SUCCEEDED") << job.dump();
  const json& streams = job["result"]["streams"];
  ASSERT_EQ(streams.size(), 10u) << job.dump();  // 5 input streams x 2 outputs
  EXPECT_EQ(streams[3]["action"], "convert to mov_text");
  EXPECT_EQ(streams[3]["language"], "eng");
  EXPECT_EQ(streams[9]["output"], 1);
  EXPECT_FALSE(streams[9].value("kept", false)) << streams[9].dump();  // proto JSON omits false
  EXPECT_TRUE(streams[1].value("kept", false)) << streams[1].dump();
  EXPECT_EQ(streams[9]["reason"], "MPEG-TS cannot carry text subtitles");
  std::vector<tc::testing::TrackProbe> mp4 = tc::testing::probe_tracks(out);
  ASSERT_EQ(mp4.size(), 5u);
  EXPECT_EQ(mp4[2].language, "fra");
  EXPECT_EQ(mp4[4].codec, "mov_text");
  EXPECT_EQ(tc::testing::probe_tracks(media + "/tracks.ts").size(), 3u);
}

// A package job through the API: submitted with the package's directory (made absolute by the
// client, checked below the media roots by the daemon), its renditions in GetJob's result.
TEST_F(DaemonTest, PackageJobThroughTheApi) {
  ASSERT_TRUE(daemon.start());
  std::string package = media + "/show";
  CommandResult r =
      client({"submit", input, "--package", "cmaf", "--package-dir", package, "--segment", "1",
              "-o", "small", "--size", "160x120", "-o", "tiny", "--size", "80x60", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string id = json::parse(r.out, nullptr, false).value("id", "");
  ASSERT_FALSE(id.empty()) << r.out;
  CommandResult watched = client({"watch", id});
  EXPECT_EQ(watched.exit_code, 0) << watched.err;
  EXPECT_NE(watched.out.find("keyframes aligned"), std::string::npos) << watched.out;
  EXPECT_GT(video_frames(package + "/master.m3u8"), 0);
  EXPECT_GT(video_frames(package + "/manifest.mpd"), 0);
  json result = get_json(id)["result"];
  ASSERT_TRUE(result.contains("package")) << result.dump();
  EXPECT_EQ(result["package"]["kind"], "cmaf");
  EXPECT_EQ(result["package"]["keyframes_aligned"], true);
  EXPECT_EQ(result["package"]["renditions"][0]["name"], "small");
  EXPECT_EQ(result["package"]["renditions"][1]["width"], 80);
  EXPECT_TRUE(partial_files(media).empty());
  // Outside the media roots: refused before it runs, naming the field.
  CommandResult outside = client(
      {"submit", input, "--package", "hls", "--package-dir", dir.path() + "/elsewhere", "-o", "a"});
  EXPECT_NE(outside.exit_code, 0);
  EXPECT_NE(outside.err.find("package.dir"), std::string::npos) << outside.err;
}

// MPEG-TS segments through the API (PackageConfig.segment_format): the daemon writes .ts
// segments with no init segment.
TEST_F(DaemonTest, TsPackageJobThroughTheApi) {
  ASSERT_TRUE(daemon.start());
  std::string package = media + "/old";
  CommandResult r =
      client({"submit", input, "--package", "hls", "--segment-format", "ts", "--package-dir",
              package, "--segment", "1", "-o", "small", "--size", "160x120", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string id = json::parse(r.out, nullptr, false).value("id", "");
  ASSERT_FALSE(id.empty()) << r.out;
  EXPECT_EQ(client({"watch", id, "--quiet"}).exit_code, 0);
  EXPECT_TRUE(tc::testing::file_exists(package + "/small/seg_00001.ts"));
  EXPECT_FALSE(tc::testing::file_exists(package + "/small/init.mp4"));
  EXPECT_GT(video_frames(package + "/master.m3u8"), 0);
}

// PackageConfig.stereo_audio through the API (unset = true): a 5.1 AC-3 source packaged as HLS
// gets its stereo rendition (CHANNELS="2" beside "6") unless the request sets it false.
TEST_F(DaemonTest, StereoAudioInThePackageConfigReachesThePackage) {
  std::string surround = media + "/surround.mkv";
  tc::testing::corpus::surround_51(surround, "ac3");
  ASSERT_TRUE(daemon.start());
  auto s = stub();
  auto package_with = [&](const std::string& name, std::optional<bool> stereo_audio) {
    pb::CreateJobRequest request;
    request.mutable_config()->set_input(surround);
    pb::OutputConfig* output = request.mutable_config()->add_outputs();
    output->set_path("v");
    output->set_width(160);
    output->set_height(90);
    pb::PackageConfig* package = request.mutable_config()->mutable_package();
    package->set_kind("hls");
    package->set_dir(media + "/" + name);
    if (stereo_audio) package->set_stereo_audio(*stereo_audio);
    grpc::ClientContext context;
    pb::Job job;
    grpc::Status status = s->CreateJob(&context, request, &job);
    EXPECT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(client({"watch", job.id(), "--quiet"}).exit_code, 0);
    return read_file_or_empty(media + "/" + name + "/master.m3u8");
  };
  std::string unset = package_with("unset", std::nullopt);
  EXPECT_NE(unset.find("CHANNELS=\"6\""), std::string::npos) << unset;
  EXPECT_NE(unset.find("CHANNELS=\"2\""), std::string::npos) << unset;
  std::string off = package_with("off", false);
  EXPECT_NE(off.find("CHANNELS=\"6\""), std::string::npos) << off;
  EXPECT_EQ(off.find("CHANNELS=\"2\""), std::string::npos) << off;
}

// A source whose size changes mid-stream: GetJob's result lists the change, and the client
// prints it with the job's result.
TEST_F(DaemonTest, SourceChangeReachesTheResult) {
  ASSERT_TRUE(daemon.start());
  std::string first = media + "/first.ts", second = media + "/second.ts";
  tc::testing::make_colour_ts(first, "0x3050c0", 640, 360, 30, 1, 0);
  tc::testing::make_colour_ts(second, "0xc8c8c8", 320, 240, 30, 1, 1);
  std::string joined = media + "/joined.ts";
  tc::testing::join_files(first, second, joined);
  std::string id = submit(joined, media + "/out.mp4");
  ASSERT_FALSE(id.empty());
  CommandResult watched = client({"watch", id});
  EXPECT_EQ(watched.exit_code, 0) << watched.err;
  const std::regex change(
      "source changed at (0\\.9|1\\.0)\\d s: 640x360 yuv420p -> 320x240 yuv420p");
  EXPECT_TRUE(std::regex_search(watched.out, change)) << watched.out;
  CommandResult human = client({"get", id});
  EXPECT_TRUE(std::regex_search(human.out, change)) << human.out;
  json result = get_json(id)["result"];
  ASSERT_EQ(result["source_changes"].size(), 1u) << result.dump();
  EXPECT_EQ(result["source_changes"][0]["before"], "640x360 yuv420p");
  EXPECT_EQ(result["source_changes"][0]["after"], "320x240 yuv420p");
  EXPECT_NEAR(result["source_changes"][0]["time_s"].get<double>(), 1, 0.1);
  EXPECT_EQ(video_frames(media + "/out.mp4"), 60);
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
  CommandResult succeeded = client({"jobs", "--state=succeeded", "--limit=10", "--json"});
  ASSERT_EQ(succeeded.exit_code, 0) << succeeded.err;
  EXPECT_EQ(json::parse(succeeded.out)["jobs"].size(), submitted.size());
  CommandResult bad = client({"jobs", "--state=sleeping"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--state"), std::string::npos) << bad.err;
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
    // Every frame of the 1 s, 30 fps input: a job cut short is no success.
    EXPECT_EQ(video_frames(media + "/c" + std::to_string(i) + ".mp4"), 30) << i;
  }
  EXPECT_TRUE(partial_files(media).empty());
}

// Every frame of `path`'s video that ffprobe decodes (not its packet count: a cut or corrupt
// stream decodes fewer).
int decoded_frames(const std::string& path) {
  std::string command =
      "ffprobe -v error -select_streams v:0 -count_frames -show_entries stream=nb_read_frames "
      "-of csv=p=0 '" +
      path + "' 2>/dev/null";  // a temp dir's path: no quote in it
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  char count[32] = {};
  if (!pipe || !fgets(count, sizeof count, pipe.get())) return -1;
  return std::atoi(count);
}

// One worker dies of SIGSEGV while another runs a job beside it: the crash fails only its own
// job; the job beside it (held mid-run by the test fault "hold" until the crash is recorded, so
// the two overlap however loaded the machine) and a job submitted after it succeed, every frame
// decodable.
TEST_F(DaemonTest, CrashedWorkerFailsOnlyItsJob) {
  // One attempt: a crash is retryable (retry_test.py retries one); here it ends its job.
  ASSERT_TRUE(daemon.start({"--slots", "2", "--max-attempts", "1"}, "hold:held_,crash:crashme"));
  std::string held_input = media + "/held_in.mp4";
  std::string crash_input = media + "/crashme.mp4";
  fs::copy_file(input, held_input);
  fs::copy_file(input, crash_input);
  std::string beside = media + "/beside.mp4";
  std::string held = submit(held_input, beside);
  ASSERT_TRUE(wait_until(
      [&] { return state_of(held) == "JOB_STATE_RUNNING" && !partial_files(media).empty(); }));
  CommandResult crashed = client({"submit", crash_input, media + "/x.mp4", "--wait", "--quiet"});
  EXPECT_EQ(crashed.exit_code, 1) << crashed.err;
  EXPECT_NE(crashed.err.find("SIGSEGV"), std::string::npos) << crashed.err;
  EXPECT_EQ(state_of(held), "JOB_STATE_RUNNING") << "the job beside the crash is still running";
  std::ofstream(held_input + ".release").put('\n');
  CommandResult watched = client({"watch", held, "--quiet"});
  EXPECT_EQ(watched.exit_code, 0) << watched.err;
  EXPECT_EQ(state_of(held), "JOB_STATE_SUCCEEDED");
  EXPECT_EQ(get_json(held).value("attempt", 0), 1) << "the crash cost the job beside it nothing";
  EXPECT_EQ(client({"health"}).exit_code, 0);
  CommandResult after = client({"submit", input, media + "/after.mp4", "--wait", "--quiet"});
  EXPECT_EQ(after.exit_code, 0) << after.err;
  // The 1 s, 30 fps input: every frame of both outputs decodes; the crashed job wrote nothing.
  EXPECT_EQ(decoded_frames(beside), 30);
  EXPECT_EQ(decoded_frames(media + "/after.mp4"), 30);
  EXPECT_FALSE(fs::exists(media + "/x.mp4"));
  EXPECT_TRUE(partial_files(media).empty());
}

TEST_F(DaemonTest, StalledWorkerIsKilledByTheWatchdog) {
  ASSERT_TRUE(daemon.start({"--stall-timeout", "2", "--max-attempts", "1"}, "stall:stallme"));
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

TEST_F(DaemonTest, HealthIsNotServingWhileShuttingDown) {
  ASSERT_TRUE(daemon.start({"--shutdown-grace", "60"}, "slow:slow_"));
  std::string slow_input = media + "/slow_in.mp4";
  ASSERT_TRUE(make_clip(slow_input, 3));
  std::string id = submit(slow_input, media + "/graced.mp4");
  ASSERT_TRUE(wait_until([&] { return state_of(id) == "JOB_STATE_RUNNING"; }));
  EXPECT_EQ(client({"health"}).exit_code, 0);
  kill(daemon.pid(), SIGTERM);  // the running job now has its grace period
  CommandResult health;
  ASSERT_TRUE(wait_until([&] {
    health = client({"health"});
    return health.exit_code == 7;  // unreachable or not serving
  }));
  EXPECT_NE(health.out.find("NOT_SERVING"), std::string::npos) << health.out << health.err;
  // The job finishes within its grace period, then the daemon exits cleanly.
  int status = daemon.stop(SIGTERM);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_GT(video_frames(media + "/graced.mp4"), 0);
  EXPECT_TRUE(partial_files(media).empty());
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
    pb::Reason reason;  // and what the status details say, for programs
    std::string field;
  };
  const auto kOutside = pb::OUTSIDE_MEDIA_ROOT;
  const auto kInvalid = grpc::StatusCode::INVALID_ARGUMENT;
  std::vector<Case> cases = {
      {create(outside, {out}), grpc::StatusCode::PERMISSION_DENIED, "input", kOutside,
       "config.input"},
      {create(media + "/../outside/in.mp4", {out}), grpc::StatusCode::PERMISSION_DENIED, "input",
       kOutside, "config.input"},
      {create(media + "/link.mp4", {out}), grpc::StatusCode::PERMISSION_DENIED, "input", kOutside,
       "config.input"},
      {create(input, {media + "/escape/o.mp4"}), grpc::StatusCode::PERMISSION_DENIED, "outputs[0]",
       kOutside, "config.outputs[0].path"},
      {create(input, {dir.path() + "/o.mp4"}), grpc::StatusCode::PERMISSION_DENIED, "outputs[0]",
       kOutside, "config.outputs[0].path"},
      {create(input, {out}, "h266"), kInvalid, "codec", pb::INVALID_FIELD,
       "config.outputs[0].codec"},
      {create(media + "/missing.mp4", {out}), kInvalid, "input", pb::PATH_NOT_FOUND,
       "config.input"},
      {create(input, {}), kInvalid, "outputs", pb::INVALID_FIELD, "config.outputs"},
      {create(input, {out, media + "/b.mp4", media + "/c.mp4"}), kInvalid, "max_outputs",
       pb::LIMIT_EXCEEDED, "config.outputs"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(cases[i].status.error_code(), cases[i].code)
        << "case " << i << ": " << cases[i].status.error_message();
    EXPECT_NE(cases[i].status.error_message().find(cases[i].names), std::string::npos)
        << "case " << i << ": " << cases[i].status.error_message();
    std::optional<pb::ErrorDetail> detail = tc::client::error_detail(cases[i].status);
    ASSERT_TRUE(detail.has_value()) << "case " << i;
    EXPECT_EQ(pb::Reason_Name(detail->reason()), pb::Reason_Name(cases[i].reason)) << "case " << i;
    EXPECT_EQ(detail->field(), cases[i].field) << "case " << i;
  }

  grpc::ClientContext get_context;
  pb::GetJobRequest get;
  get.set_id("j-nope");
  pb::Job job;
  EXPECT_EQ(s->GetJob(&get_context, get, &job).error_code(), grpc::StatusCode::NOT_FOUND);
  CommandResult missing = client({"get", "j-nope"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("NOT_FOUND"), std::string::npos);
  EXPECT_NE(missing.err.find("reason JOB_NOT_FOUND"), std::string::npos) << missing.err;
  // The client prints the reason and the field of a refused submit.
  CommandResult refused = client({"submit", outside, out});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("reason OUTSIDE_MEDIA_ROOT, field config.input"), std::string::npos)
      << refused.err;

  // One slot, a queue of one: a slow job runs, one waits, the next is refused.
  std::string slow_input = media + "/slow_in.mp4";
  ASSERT_TRUE(make_clip(slow_input, 3));
  std::string running = submit(slow_input, media + "/q1.mp4");
  ASSERT_TRUE(wait_until([&] { return state_of(running) == "JOB_STATE_RUNNING"; }));
  std::string queued = submit(slow_input, media + "/q2.mp4");
  grpc::Status full = create(slow_input, {media + "/q3.mp4"});
  EXPECT_EQ(full.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << full.error_message();
  EXPECT_NE(full.error_message().find("max_queue"), std::string::npos);
  std::optional<pb::ErrorDetail> full_detail = tc::client::error_detail(full);
  ASSERT_TRUE(full_detail.has_value());
  EXPECT_EQ(full_detail->reason(), pb::QUEUE_FULL);
  EXPECT_EQ(full_detail->field(), "");
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
  int status = shell(env_or_die("TRANSCODED") + " --max-queue=0 --state-dir " + state + " 2>" +
                     dir.path() + "/err");
  EXPECT_EQ(status, 2);
  status = shell(env_or_die("TRANSCODED") + " --media-root /no/such/dir --state-dir " + state +
                 " 2>>" + dir.path() + "/err");
  EXPECT_EQ(status, 2);
  std::string text = read_file_or_empty(dir.path() + "/err");
  EXPECT_NE(text.find("max_queue"), std::string::npos) << text;
  EXPECT_NE(text.find("media_root"), std::string::npos) << text;
}

TEST_F(DaemonTest, UnknownOptionHelpAndVersion) {
  std::string daemon_binary = env_or_die("TRANSCODED");
  std::string out = dir.path() + "/out", err = dir.path() + "/err";
  auto run = [&](const std::string& args) {
    return shell(daemon_binary + " " + args + " --state-dir " + state + " >" + out + " 2>" + err);
  };
  EXPECT_EQ(run("--bogus"), 2);
  EXPECT_NE(read_file_or_empty(err).find("unknown option --bogus"), std::string::npos)
      << read_file_or_empty(err);
  EXPECT_EQ(read_file_or_empty(out), "");
  EXPECT_EQ(run("--version"), 0);
  // The version is the repository's VERSION file's (read here, not compiled in).
  EXPECT_EQ(read_file_or_empty(out).rfind("transcoded " + source_version() + " (FFmpeg ", 0), 0u)
      << read_file_or_empty(out);
  EXPECT_EQ(run("--help"), 0);
  EXPECT_NE(read_file_or_empty(out).find("--max-queue N"), std::string::npos)
      << read_file_or_empty(out);
  EXPECT_NE(read_file_or_empty(out).find("--config FILE"), std::string::npos)
      << read_file_or_empty(out);
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

namespace {

bool has_line(const std::string& text, const std::string& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

TEST_F(DaemonTest, WatchShowsLiveProgressAndMetricsCountTheJob) {
  // Four seconds of media through the "slow" fault: long enough for progress events.
  std::string long_input = media + "/long.mp4";
  ASSERT_TRUE(make_clip(long_input, 4));
  ASSERT_TRUE(daemon.start({"--metrics-listen", "127.0.0.1:0"}, "slow"));
  ASSERT_FALSE(daemon.metrics_address().empty());
  std::string before = http_get(daemon.metrics_address(), "/metrics");
  EXPECT_TRUE(has_line(before, "transcoded_queue_depth 0")) << before;

  std::string out = media + "/watched.mp4";
  std::string id = submit(long_input, out, {"--size", "160x120"});
  ASSERT_FALSE(id.empty());
  grpc::ClientContext context;
  pb::WatchJobRequest request;
  request.set_id(id);
  auto reader = stub()->WatchJob(&context, request);
  pb::JobEvent event;
  pb::Job last;
  std::vector<pb::Progress> progress;
  while (reader->Read(&event)) {
    last = event.job();
    if (event.kind() == pb::JobEvent::KIND_PROGRESS) progress.push_back(event.job().progress());
  }
  ASSERT_TRUE(reader->Finish().ok());
  ASSERT_EQ(last.state(), pb::JOB_STATE_SUCCEEDED) << last.error().message();
  ASSERT_FALSE(progress.empty());
  bool moving = false;
  for (const pb::Progress& p : progress)
    moving = moving || (p.frames_decoded() > 0 && p.fps() > 0 && p.speed() > 0);
  EXPECT_TRUE(moving);
  // Live engine figures of a software job: "not available" and why, never 0 %.
  for (const pb::Progress& p : progress) {
    EXPECT_TRUE(p.has_engines());
    EXPECT_FALSE(p.engines().available());
    EXPECT_EQ(p.engines().engines_size(), 0);
    EXPECT_EQ(p.engines().unavailable_reason().rfind("not available: ", 0), 0u)
        << p.engines().unavailable_reason();
  }

  // Stored with the job: throughput from the worker, engines from the daemon's sampler.
  json job = get_json(id);
  const json& result = job["result"];
  EXPECT_GT(result.value("fps", 0.0), 0);
  EXPECT_GT(result.value("speed", 0.0), 0);
  EXPECT_GT(result.value("cpu_s", 0.0), 0);
  EXPECT_GT(result.value("first_frame_s", 0.0), 0);
  EXPECT_NE(result["engines"].value("unavailable_reason", "").find("(a software job)"),
            std::string::npos)
      << result.dump();
  EXPECT_GT(result["engines"].value("cpu_cores", 0.0), 0);
  EXPECT_NE(result.value("report_json", "").find("\"engines\""), std::string::npos);
  CommandResult human = client({"get", id});
  EXPECT_NE(human.out.find("engines: not available"), std::string::npos) << human.out;

  // The node's counters include the job.
  int64_t encoded = std::stoll(result["outputs"][0].value("frames", "0"));
  EXPECT_GT(encoded, 0);
  std::string text = http_get(daemon.metrics_address(), "/metrics");
  EXPECT_TRUE(has_line(text, "transcoded_jobs{state=\"succeeded\"} 1")) << text;
  EXPECT_TRUE(has_line(text,
                       "transcoded_frames_encoded_total{device=\"software\","
                       "backend=\"software\"} " +
                           std::to_string(encoded)))
      << text;
  EXPECT_TRUE(has_line(text, "transcoded_job_duration_seconds_count{state=\"succeeded\"} 1"))
      << text;
  EXPECT_TRUE(has_line(text, "transcoded_running_jobs{device=\"software\",backend=\"software\"} 0"))
      << text;
}

// --quality through the daemon: the figures reach GetJob and the client, and the node's
// histograms count the output.
// Over gRPC, Progress names the input's length input_duration_s and JobResult the media
// processed media_processed_s (each field's deprecated media_duration_s carried both meanings),
// and JobResult has the report's setup_s and threads, equal to those in its report_json.
TEST_F(DaemonTest, ProgressAndResultNameWhatTheirDurationsMeasure) {
  std::string long_input = media + "/three.mp4";
  ASSERT_TRUE(make_clip(long_input, 3));
  ASSERT_TRUE(daemon.start({}, "slow"));
  std::string id = submit(long_input, media + "/three-out.mp4", {"--size", "160x120"});
  ASSERT_FALSE(id.empty());
  grpc::ClientContext watch_context;
  pb::WatchJobRequest watch;
  watch.set_id(id);
  auto reader = stub()->WatchJob(&watch_context, watch);
  pb::JobEvent event;
  std::vector<pb::Progress> progress;
  while (reader->Read(&event))
    if (event.kind() == pb::JobEvent::KIND_PROGRESS) progress.push_back(event.job().progress());
  ASSERT_TRUE(reader->Finish().ok());
  ASSERT_FALSE(progress.empty());
  for (const pb::Progress& p : progress) {  // the whole input's length, from the first event
    EXPECT_NEAR(p.input_duration_s(), 3.0, 0.1);
    EXPECT_LE(p.media_time_s(), p.input_duration_s() + 0.1);
  }

  grpc::ClientContext get_context;
  pb::GetJobRequest get;
  get.set_id(id);
  pb::Job job;
  ASSERT_TRUE(stub()->GetJob(&get_context, get, &job).ok());
  ASSERT_EQ(job.state(), pb::JOB_STATE_SUCCEEDED) << job.error().message();
  const pb::JobResult& result = job.result();
  json report = json::parse(result.report_json());
  EXPECT_NEAR(result.media_processed_s(), 3.0, 0.1);
  EXPECT_EQ(result.media_processed_s(), report["media_processed_s"].get<double>());
  EXPECT_GT(result.setup_s(), 0);
  EXPECT_EQ(result.setup_s(), report["setup_s"].get<double>());
  ASSERT_EQ(result.threads_size(), static_cast<int>(report["threads"].size()));
  std::set<std::string> names;
  for (int i = 0; i < result.threads_size(); ++i) {
    const json& thread = report["threads"][i];
    EXPECT_EQ(result.threads(i).name(), thread["name"].get<std::string>());
    EXPECT_EQ(result.threads(i).busy_s(), thread["busy_s"].get<double>());
    EXPECT_EQ(result.threads(i).blocked_s(), thread["blocked_s"].get<double>());
    names.insert(result.threads(i).name());
  }
  EXPECT_EQ(names, (std::set<std::string>{"decode", "video graph", "out0"}));
}

TEST_F(DaemonTest, QualityFiguresReachTheResultAndTheHistograms) {
  ASSERT_TRUE(daemon.start({"--metrics-listen", "127.0.0.1:0"}));
  std::string out = media + "/measured.mp4";
  std::string id = submit(input, out, {"--size", "160x120", "--quality", "psnr,ssim"});
  ASSERT_FALSE(id.empty());
  CommandResult watched = client({"watch", id});
  EXPECT_EQ(watched.exit_code, 0) << watched.err;
  EXPECT_NE(watched.out.find("quality: PSNR "), std::string::npos) << watched.out;
  json job = get_json(id);
  ASSERT_EQ(job.value("state", ""), "JOB_STATE_SUCCEEDED") << job.dump();
  EXPECT_EQ(job["config"].value("quality_metrics", ""), "psnr,ssim");
  const json& quality = job["result"]["outputs"][0]["quality"];
  ASSERT_TRUE(quality.is_object()) << job.dump();
  EXPECT_GT(quality.value("psnr_avg_db", 0.0), 20) << quality.dump();
  EXPECT_GT(quality.value("ssim", 0.0), 0.5) << quality.dump();
  std::string text = http_get(daemon.metrics_address(), "/metrics");
  EXPECT_TRUE(has_line(text, "transcoded_output_psnr_db_count{backend=\"software\"} 1")) << text;
  EXPECT_TRUE(has_line(text, "transcoded_output_ssim_count{backend=\"software\"} 1")) << text;
  EXPECT_NE(text.find("# TYPE transcoded_output_psnr_db histogram"), std::string::npos);
}

}  // namespace

namespace {

// Writes `text` to `path` atomically (the daemon may read at any moment).
void write_atomically(const std::string& path, const std::string& text) {
  std::ofstream(path + ".tmp") << text;
  fs::rename(path + ".tmp", path);
}

TEST_F(DaemonTest, EngineFiguresComeFromTheProcRootSetting) {
  // A fake /proc: the test gives the running worker an i915 client whose counters it advances.
  std::string fake = dir.path() + "/proc";
  fs::create_directories(fake);
  std::string long_input = media + "/long.mp4";
  ASSERT_TRUE(make_clip(long_input, 4));
  // No warm workers: the job's worker is then the daemon's only worker.
  ASSERT_TRUE(daemon.start(
      {"--proc-root", fake, "--metrics-listen", "127.0.0.1:0", "--warm-workers", "0"}, "slow"));
  std::string id = submit(long_input, media + "/engines.mp4", {"--size", "160x120"});
  std::vector<pid_t> workers;
  ASSERT_TRUE(wait_until([&] { return !(workers = workers_of(daemon.pid())).empty(); }));
  std::string base = fake + "/" + std::to_string(workers[0]);
  fs::create_directories(base + "/fd");
  fs::create_directories(base + "/fdinfo");
  fs::create_symlink("/dev/dri/renderD128", base + "/fd/5");
  uint64_t busy_ns = 0;
  auto advance = [&] {
    busy_ns += 50'000'000;
    write_atomically(base + "/fdinfo/5",
                     "drm-driver: i915\ndrm-client-id: 12\ndrm-pdev: 0000:00:02.0\n"
                     "drm-engine-render: 0 ns\ndrm-engine-video: " +
                         std::to_string(busy_ns) +
                         " ns\ndrm-engine-capacity-video: 2\n"
                         "drm-total-system0: 4 MiB\n");
  };
  // Live: the running job shows the class, and the node sums it per device.
  bool live_seen = false, node_seen = false;
  wait_until([&] {
    advance();
    json job = get_json(id);
    if (job.value("state", "") != "JOB_STATE_RUNNING") return true;
    const json& engines = job["progress"]["engines"];
    live_seen =
        live_seen || (engines.value("available", false) && engines.value("driver", "") == "i915" &&
                      engines["engines"].dump().find("\"video\"") != std::string::npos);
    node_seen = node_seen || http_get(daemon.metrics_address(), "/metrics")
                                     .find(
                                         "transcoded_device_engine_busy_ratio{device=\"software\","
                                         "engine=\"video\"}") != std::string::npos;
    return false;
  });
  EXPECT_TRUE(live_seen);
  EXPECT_TRUE(node_seen);
  EXPECT_EQ(client({"watch", id, "--quiet"}).exit_code, 0);

  // The job's average: available, from the fake counters, within 0..100 %.
  json engines = get_json(id)["result"]["engines"];
  EXPECT_EQ(engines.value("source", ""), "drm-fdinfo") << engines.dump();
  EXPECT_EQ(engines.value("driver", ""), "i915");
  EXPECT_EQ(engines["memory_total_peak_bytes"], "4194304");  // int64 in proto JSON: a string
  bool video = false;
  for (const json& e : engines["engines"]) {
    if (e.value("engine", "") != "video") continue;
    video = true;
    EXPECT_EQ(e.value("capacity", 0), 2);
    EXPECT_GT(e.value("busy_percent", 0.0), 0);
    EXPECT_LE(e.value("busy_percent", 0.0), 100);
  }
  EXPECT_TRUE(video) << engines.dump();
}

// Whether the daemon looked for CUDA at start: a CUDA device, or discovery's note on why none
// (this machine has no libcuda), in GetCapabilities.
bool looked_for_cuda(const pb::Capabilities& caps) {
  for (const pb::Device& device : caps.devices())
    if (device.backend() == "cuda") return true;
  for (const std::string& note : caps.notes())
    if (note.starts_with("cuda: ")) return true;
  return false;
}

// A node that names no backend offers every one it has: where the NVIDIA kernel driver is
// loaded (a fake /proc says so here) the daemon looks for CUDA once at start, so its cuda jobs'
// workers need not each probe NVENC; elsewhere, or where the node names its backends without
// cuda, it starts no CUDA runtime.
TEST_F(DaemonTest, ANodeWithTheNvidiaDriverLooksForCudaAtStart) {
  std::string fake = dir.path() + "/proc";
  fs::create_directories(fake + "/driver/nvidia");
  auto caps_with = [&](const std::vector<std::string>& args) {
    EXPECT_TRUE(daemon.start(args));
    grpc::ClientContext context;
    pb::Capabilities caps;
    EXPECT_TRUE(stub()->GetCapabilities(&context, pb::GetCapabilitiesRequest(), &caps).ok());
    daemon.stop(SIGTERM);
    return caps;
  };
  pb::Capabilities without_driver = caps_with({"--proc-root", fake});
  EXPECT_FALSE(looked_for_cuda(without_driver)) << without_driver.DebugString();

  std::ofstream(fake + "/driver/nvidia/version")
      << "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15\n";
  pb::Capabilities with_driver = caps_with({"--proc-root", fake});
  EXPECT_TRUE(looked_for_cuda(with_driver)) << with_driver.DebugString();
  pb::Capabilities software_only = caps_with({"--proc-root", fake, "--backend", "software"});
  EXPECT_FALSE(looked_for_cuda(software_only)) << software_only.DebugString();
}

// The names of `pid`'s threads, from /proc.
std::vector<std::string> thread_names(pid_t pid) {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& task : fs::directory_iterator("/proc/" + std::to_string(pid) + "/task", error))
    names.push_back(read_file_or_empty(task.path() / "comm"));
  return names;
}

// The daemon runs no media: its discovery runs in a child, so no driver's code or context is in
// the daemon when it serves (a CUDA context held for its life would pin GPU memory, and in
// exclusive-process compute mode lock its workers out). An open Vulkan device keeps Mesa's
// driver (libvulkan_lvp, _intel, _radeon) mapped, and lavapipe's shows as llvmpipe threads too.
TEST_F(DaemonTest, TheDaemonHoldsNoDeviceItDiscovered) {
  ASSERT_TRUE(daemon.start({"--backend", "vulkan", "--backend", "software"}));
  grpc::ClientContext context;
  pb::Capabilities caps;
  ASSERT_TRUE(stub()->GetCapabilities(&context, pb::GetCapabilitiesRequest(), &caps).ok());
  bool vulkan = std::any_of(caps.devices().begin(), caps.devices().end(),
                            [](const pb::Device& d) { return d.backend() == "vulkan"; });
  if (!vulkan) GTEST_SKIP() << "no Vulkan device here (lavapipe: mesa-vulkan-drivers)";
  std::vector<std::string> names = thread_names(daemon.pid());
  ASSERT_FALSE(names.empty());
  for (const std::string& name : names)
    EXPECT_FALSE(name.starts_with("llvmpipe")) << "a thread of an open Vulkan device: " << name;
  std::string maps = read_file_or_empty("/proc/" + std::to_string(daemon.pid()) + "/maps");
  ASSERT_FALSE(maps.empty());
  EXPECT_EQ(maps.find("/libvulkan_"), std::string::npos) << "a Vulkan driver still mapped";
}

// What a node offering vulkan showed when its Vulkan driver misbehaved in discovery (a fake
// driver that the real Vulkan loader loads, tests/daemon/fake_vulkan_driver.c): its notes in
// GetCapabilities, whether it listed a Vulkan device, and the state of a software job run then.
struct BrokenDriverNode {
  std::vector<std::string> notes;
  bool vulkan_device = false;
  std::string job_state;
};

class BrokenDriverTest : public DaemonTest {
 protected:
  // `discovery_timeout`: seconds; a bound the test is about, or one long enough that a loaded
  // machine never reaches it.
  BrokenDriverNode start_with_driver_that(const std::string& how,
                                          const std::string& discovery_timeout) {
    std::string manifest = dir.path() + "/fake_icd.json";
    std::ofstream(manifest) << R"({"file_format_version": "1.0.0", "ICD": {"library_path": ")"
                            << TC_FAKE_VULKAN_DRIVER << R"(", "api_version": "1.3.0"}})";
    setenv("VK_ICD_FILENAMES", manifest.c_str(), 1);
    setenv("TC_FAKE_VULKAN_DRIVER", how.c_str(), 1);
    bool started = daemon.start(
        {"--backend", "vulkan", "--backend", "software", "--discovery-timeout", discovery_timeout});
    unsetenv("VK_ICD_FILENAMES");
    unsetenv("TC_FAKE_VULKAN_DRIVER");
    BrokenDriverNode node;
    EXPECT_TRUE(started);
    if (!started) return node;
    grpc::ClientContext context;
    pb::Capabilities caps;
    EXPECT_TRUE(stub()->GetCapabilities(&context, pb::GetCapabilitiesRequest(), &caps).ok());
    node.notes.assign(caps.notes().begin(), caps.notes().end());
    for (const pb::Device& device : caps.devices())
      node.vulkan_device = node.vulkan_device || device.backend() == "vulkan";
    std::string out = media + "/after.mp4";
    std::string id = submit(input, out, {"--size", "160x120"});
    EXPECT_EQ(client({"watch", id}).exit_code, 0);
    node.job_state = state_of(id);
    return node;
  }

  // The node has no Vulkan device, says `why` in its notes, and ran the software job.
  static void expect_served_without_devices(const BrokenDriverNode& node, const std::string& why) {
    bool said = std::any_of(node.notes.begin(), node.notes.end(), [&](const std::string& note) {
      return note.find(why) != std::string::npos;
    });
    EXPECT_TRUE(said) << testing::PrintToString(node.notes);
    EXPECT_FALSE(node.vulkan_device);
    EXPECT_EQ(node.job_state, "JOB_STATE_SUCCEEDED");
  }
};

// A driver that hangs (a wedged GPU): discovery is stopped at its timeout, and the node serves
// software jobs, saying why it has no device; nothing is left running the driver.
TEST_F(BrokenDriverTest, ADriverThatHangsInDiscoveryIsStoppedAndTheNodeServes) {
  // The driver hangs until killed (or 120 s pass: then it dies of SIGALRM and the note says so),
  // so the 1 s timeout elapses however loaded the machine is.
  BrokenDriverNode node = start_with_driver_that("hang", "1");
  expect_served_without_devices(node, "device discovery did not finish within 1 s");
  for (pid_t child : children_of(daemon.pid()))
    EXPECT_EQ(read_file_or_empty("/proc/" + std::to_string(child) + "/maps").find("fake_vulkan"),
              std::string::npos)
        << "process " << child << " still runs the hung driver";
}

// A driver that crashes: the daemon, which would have died with it, serves and names the signal.
TEST_F(BrokenDriverTest, ADriverThatCrashesInDiscoveryLeavesTheNodeServing) {
  // A long timeout: the loader may take more than a second to reach the driver on a loaded
  // machine, and the crash, not the timeout, is what is checked.
  expect_served_without_devices(start_with_driver_that("abort", "120"),
                                "device discovery died of signal 6 (SIGABRT)");
}

// What `transcode doctor` would flag is logged once at start-up and carried in GetCapabilities'
// notes: here, a machine without /dev/dri, the missing render node with its fix.
TEST_F(DaemonTest, CapabilitiesNotesCarryWhatDoctorFlags) {
  if (fs::exists("/dev/dri")) GTEST_SKIP() << "this host has /dev/dri";
  std::string log = dir.path() + "/daemon.log";
  daemon.log_to(log);
  ASSERT_TRUE(daemon.start({"--log-level", "info"}));  // no GPU is not a fault: an info line
  grpc::ClientContext context;
  pb::Capabilities caps;
  ASSERT_TRUE(stub()->GetCapabilities(&context, pb::GetCapabilitiesRequest(), &caps).ok());
  std::string flagged;
  for (const std::string& note : caps.notes())
    if (note.starts_with("doctor: render-node (/dev/dri)")) flagged = note;
  EXPECT_NE(flagged.find("fix: "), std::string::npos) << caps.DebugString();
  std::string text = read_file_or_empty(log);
  size_t first = text.find("doctor: render-node");
  ASSERT_NE(first, std::string::npos) << text;
  EXPECT_EQ(text.find("doctor: render-node", first + 1), std::string::npos) << "logged twice";
}

// Issue 36: a package job replaces only a package the program wrote. The media root itself
// (the input's folder), a parent of an input and a user's folder are refused: the job FAILED
// with OUTPUT naming the directory (watch exits 6), every file still there; a second job over
// the first's package replaces it.
class DaemonPackageOwnership : public DaemonTest {
 protected:
  // `server`: another daemon's address ("" = the fixture's).
  json package_job(const std::string& in, const std::string& package, const std::string& name,
                   const std::string& server = "") {
    auto call = [&](std::vector<std::string> args) {
      if (server.empty()) return client(args);
      args.insert(args.end(), {"--server", server});
      return run_client(args);
    };
    CommandResult r = call({"submit", in, "--package", "hls", "--package-dir", package, "--segment",
                            "1", "-o", name, "--size", "160x120", "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::string id = json::parse(r.out, nullptr, false).value("id", "");
    CommandResult watched = call({"watch", id, "--quiet"});
    CommandResult got = call({"get", id, "--json"});
    json job = json::parse(got.out, nullptr, false);
    if (!job.is_object()) job = json::object();
    job["watch_exit_code"] = watched.exit_code;
    return job;
  }
  void expect_refused(const json& job, const std::string& package) {
    EXPECT_EQ(job.value("state", ""), "JOB_STATE_FAILED") << job.dump();
    json error = job.value("error", json::object());
    EXPECT_EQ(error.value("code", ""), "ERROR_CODE_OUTPUT") << job.dump();
    EXPECT_NE(error.value("message", "").find(package + ": not replaced"), std::string::npos)
        << job.dump();
    EXPECT_EQ(job["watch_exit_code"], 6);
  }
};

TEST_F(DaemonPackageOwnership, TheInputsFolderAParentAndAUsersFolderAreKept) {
  ASSERT_TRUE(daemon.start());
  fs::create_directories(media + "/library/show");
  std::string show = media + "/library/show/in.mp4";
  fs::copy_file(input, show);
  expect_refused(package_job(show, media + "/library/show", "a"), media + "/library/show");
  expect_refused(package_job(show, media + "/library", "a"), media + "/library");
  EXPECT_TRUE(tc::testing::file_exists(show)) << "the input is gone";
  fs::create_directories(media + "/videos");
  std::ofstream(media + "/videos/notes.txt") << "mine";
  expect_refused(package_job(input, media + "/videos", "a"), media + "/videos");
  EXPECT_EQ(tc::testing::read_file(media + "/videos/notes.txt"), "mine");
  EXPECT_TRUE(partial_files(media).empty());
}

TEST_F(DaemonPackageOwnership, AUsersThumbnailIndexBesideTheOutputSurvives) {
  ASSERT_TRUE(daemon.start());
  std::ofstream(media + "/thumbnails.vtt") << "WEBVTT\n\nmy own chapters\n";
  std::string id = submit(input, media + "/out.mp4",
                          {"--size", "160x120", "--thumbnails", "1", "--thumbnail-size", "32x0"});
  EXPECT_EQ(client({"watch", id, "--quiet"}).exit_code, 6);
  json job = get_json(id);
  EXPECT_EQ(job.value("state", ""), "JOB_STATE_FAILED") << job.dump();
  EXPECT_NE(job.value("error", json::object())
                .value("message", "")
                .find(media + "/thumbnails.vtt: not replaced"),
            std::string::npos)
      << job.dump();
  EXPECT_EQ(tc::testing::read_file(media + "/thumbnails.vtt"), "WEBVTT\n\nmy own chapters\n");
  EXPECT_FALSE(tc::testing::file_exists(media + "/out.mp4"));
}

// A daemon whose state directory is below its media root would let a job package over its
// store (jobs.sqlite3 was deleted so): it does not start at all, and nothing is left serving.
TEST_F(DaemonPackageOwnership, ADaemonWhoseStateDirIsBelowItsMediaRootDoesNotStart) {
  Daemon inside{media + "/state", media};
  EXPECT_FALSE(inside.start()) << "a daemon started with its state dir inside its media root";
  EXPECT_FALSE(tc::testing::file_exists(media + "/state/jobs.sqlite3"));
}

TEST_F(DaemonPackageOwnership, ASecondJobReplacesTheFirstsPackage) {
  ASSERT_TRUE(daemon.start());
  std::string package = media + "/pkg";
  ASSERT_EQ(package_job(input, package, "first").value("state", ""), "JOB_STATE_SUCCEEDED");
  json second = package_job(input, package, "second");
  ASSERT_EQ(second.value("state", ""), "JOB_STATE_SUCCEEDED") << second.dump();
  EXPECT_FALSE(tc::testing::file_exists(package + "/first/init.mp4"));
  EXPECT_TRUE(tc::testing::file_exists(package + "/second/init.mp4"));
}

}  // namespace
