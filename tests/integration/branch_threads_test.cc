// Branch threads (issue 15): each output encodes and muxes on its own thread, fed in order, so
// what it writes is what the serial executor (`transcode run --serial`) writes. The software
// encoders are deterministic (libx264 frame threads, the native AAC encoder), so every packet
// must match, byte for byte: ffmpeg's framemd5 of every stream of every output, and every file
// of a package.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>

#include "pipeline/plan/gop_parallel.h"
#include "pipeline/plan/x264_avx512.h"
#include "tests/support/media_tools.h"

namespace tc::testing {
namespace {

using nlohmann::json;

// Every packet of every stream: its timestamps, size, flags and an MD5 of its bytes.
// The threads x264 ran with, as it writes them in its first frame's SEI ("... threads=9 ...").
int x264_threads_in(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::string bytes{std::istreambuf_iterator<char>(file), {}};
  size_t at = bytes.find(" threads=");
  return at == std::string::npos ? -1 : std::atoi(bytes.c_str() + at + 9);
}

class BranchThreads : public ::testing::Test {
 protected:
  void SetUp() override { make_multitrack_clip(in_ / "tracks.mkv"); }

  // `transcode run` of the job `outputs` into `dir`, threaded or --serial; its JSON report.
  json run(const std::string& dir, const std::vector<std::string>& outputs, bool serial) {
    std::vector<std::string> args{"run", in_ / "tracks.mkv", "--json", "-q"};
    if (serial) args.push_back("--serial");
    for (const std::string& arg : outputs)
      args.push_back(arg.rfind("@", 0) == 0 ? dir + "/" + arg.substr(1) : arg);
    ProcessResult ran = transcode(args);
    EXPECT_EQ(ran.exit_code, 0) << ran.err;
    return json::parse(ran.out, nullptr, false);
  }

  TempDir in_, threaded_, serial_;
};

// A ladder that encodes, copies, converts subtitles and measures quality: every kind of work
// an output's thread does.
TEST_F(BranchThreads, EveryOutputWritesTheSerialBitstreams) {
  std::vector<std::string> job{"--quality", "psnr",      "-o",         "@full.mkv", "--size",
                               "320x240",   "-o",        "@small.mp4", "--size",    "160x120",
                               "-o",        "@copy.mkv", "--codec",    "copy"};
  json threaded = run(threaded_.path(), job, false);
  json serial = run(serial_.path(), job, true);
  ASSERT_TRUE(threaded.is_object() && serial.is_object());
  for (const std::string name : {"full.mkv", "small.mp4", "copy.mkv"}) {
    std::string hashes = packet_hashes(threaded_ / name);
    EXPECT_NE(hashes.find("#stream#"), std::string::npos) << name << ": no packets";
    EXPECT_EQ(hashes, packet_hashes(serial_ / name)) << name;
  }
  // The tracks each output keeps are all there (audio, subtitles), not only the video.
  EXPECT_EQ(probe_tracks(threaded_ / "full.mkv").size(), 5u);
  ASSERT_EQ(threaded["outputs"].size(), 3u);
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(threaded["outputs"][k]["frames"], serial["outputs"][k]["frames"]) << k;
    EXPECT_EQ(threaded["outputs"][k]["quality"], serial["outputs"][k]["quality"]) << k;
  }
  EXPECT_GT(threaded["outputs"][0]["quality"].value("psnr_avg_db", 0.0), 20.0) << threaded;
  // Where each of the pipeline's threads spent the job: the demux and decode thread, the video
  // graph's, one per output. Each thread's busy and blocked time fit in the wall time, the
  // decode thread's make it up whole, and every output did work. A serial run has none.
  double wall_s = threaded["wall_s"].get<double>();
  const json& threads = threaded["threads"];
  std::vector<std::string> names;
  for (const json& thread : threads) {
    names.push_back(thread["name"]);
    double busy_s = thread["busy_s"].get<double>();
    double blocked_s = thread["blocked_s"].get<double>();
    EXPECT_GE(busy_s, 0) << thread;
    EXPECT_GE(blocked_s, 0) << thread;
    EXPECT_LE(busy_s + blocked_s, wall_s + 1e-3) << thread;
    if (names.back().rfind("out", 0) == 0) {
      EXPECT_GT(busy_s, 0) << thread;
    }
  }
  EXPECT_EQ(names, (std::vector<std::string>{"decode", "video graph", "out0", "out1", "out2"}));
  if (!threads.empty()) {
    EXPECT_NEAR(threads[0]["busy_s"].get<double>() + threads[0]["blocked_s"].get<double>(), wall_s,
                1e-3);
  }
  EXPECT_TRUE(serial["threads"].empty()) << serial["threads"];
}

// A package's renditions add their tracks to one package from their own threads.
TEST_F(BranchThreads, PackageFilesAreTheSerialOnes) {
  auto job = [](const std::string& dir) {
    return std::vector<std::string>{
        "--package", "cmaf",   "--package-dir", dir + "/pkg", "--segment", "1",      "-o",
        "hi",        "--size", "320x240",       "-o",         "lo",        "--size", "160x120"};
  };
  run(threaded_.path(), job(threaded_.path()), false);
  run(serial_.path(), job(serial_.path()), true);
  for (const std::string rendition : {"hi", "lo", "audio_1"}) {
    std::string dir = "/pkg/" + rendition;
    ProcessResult listed = run_process({"ls", threaded_.path() + dir});
    ASSERT_EQ(listed.exit_code, 0) << rendition;
    EXPECT_EQ(listed.out, run_process({"ls", serial_.path() + dir}).out) << rendition;
    std::istringstream names(listed.out);
    int files = 0;
    for (std::string name; std::getline(names, name); ++files)
      EXPECT_EQ(read_file(threaded_.path() + dir + "/" + name),
                read_file(serial_.path() + dir + "/" + name))
          << rendition << "/" << name;
    EXPECT_GE(files, 3) << rendition << ": init, segments, playlist";
  }
  for (const std::string manifest : {"master.m3u8", "manifest.mpd"})
    EXPECT_EQ(read_file(threaded_.path() + "/pkg/" + manifest),
              read_file(serial_.path() + "/pkg/" + manifest))
        << manifest;
}

// GOP-parallel encoding (--gop-parallel): a 6 s clip cut into chunks of 48 frames (4 GOPs of
// 12), encoded three at once. What a user checks: one playable stream with every frame, a
// keyframe where each chunk starts, the same bitstream threaded or serial, the quality of one
// encoder's, and in a package, segments still aligned.
TEST_F(BranchThreads, GopChunksMakeOneStreamWithEveryFrame) {
  make_clip(in_ / "long.mp4", {.seconds = 6});
  auto job = [&](const std::string& dir, const std::string& encoders, bool serial) {
    std::vector<std::string> args{"run",       in_ / "long.mp4", "--json",         "-q",
                                  "-o",        dir + "/out.mkv", "--gop",          "12",
                                  "--quality", "psnr",           "--gop-parallel", encoders};
    if (serial) args.push_back("--serial");
    ProcessResult ran = transcode(args);
    EXPECT_EQ(ran.exit_code, 0) << ran.err;
    return json::parse(ran.out, nullptr, false);
  };
  TempDir whole;
  json threaded = job(threaded_.path(), "3", false);
  json serial = job(serial_.path(), "3", true);
  json one = job(whole.path(), "1", false);
  ASSERT_TRUE(threaded.is_object() && serial.is_object() && one.is_object());
  EXPECT_EQ(threaded["outputs"][0]["chunks"], 4) << threaded["outputs"];  // 48+48+48+36 frames
  EXPECT_EQ(one["outputs"][0]["chunks"], 1);
  EXPECT_EQ(packet_hashes(threaded_ / "out.mkv"), packet_hashes(serial_ / "out.mkv"));
  EXPECT_NE(packet_hashes(threaded_ / "out.mkv"), packet_hashes(whole / "out.mkv"));
  // Every frame, decodable, with a keyframe at each chunk's start (ffprobe's key_frame flags).
  ProcessResult frames =
      run_process({"ffprobe", "-v", "error", "-select_streams", "v", "-show_entries",
                   "frame=key_frame", "-of", "csv=p=0", threaded_ / "out.mkv"});
  ASSERT_EQ(frames.exit_code, 0) << frames.err;
  std::vector<int> keys;
  std::istringstream lines(frames.out);
  // A keyframe's line may carry an empty column of side data ("1,"), followed by a blank line.
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) keys.push_back(line[0] == '1' ? 1 : 0);
  ASSERT_EQ(keys.size(), 180u);
  for (int start : {0, 48, 96, 144}) EXPECT_EQ(keys[start], 1) << "frame " << start;
  // Cutting costs next to nothing: the same quality as one encoder's, within 0.3 dB.
  double chunked_db = threaded["outputs"][0]["quality"].value("psnr_avg_db", 0.0);
  double whole_db = one["outputs"][0]["quality"].value("psnr_avg_db", 0.0);
  EXPECT_GT(chunked_db, 30.0);
  EXPECT_NEAR(chunked_db, whole_db, 0.3);
}

// A job with a cut output gives its x264 encoders threads by their share of the pixels
// (plan/gop_parallel.h): 320x240 has 80 % of this job's, 160x120 20 %. x264's auto would give
// each of them 1.5 threads a core; what x264 itself says it ran with is the check.
TEST_F(BranchThreads, X264RunsWithItsShareOfTheCores) {
  ProcessResult ran = transcode({"run", in_ / "tracks.mkv", "-q", "--audio", "none", "--gop", "12",
                                 "--gop-parallel", "2", "-o", threaded_ / "big.mkv", "-o",
                                 threaded_ / "small.mkv", "--size", "160x120"});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_EQ(x264_threads_in(threaded_ / "big.mkv"),
            x264_threads_per_encoder(usable_cores(), 0.8, 2));
  EXPECT_EQ(x264_threads_in(threaded_ / "small.mkv"),
            x264_threads_per_encoder(usable_cores(), 0.2, 1));
}

// x264's AVX-512 mbtree reads memory it never wrote at such widths (plan/x264_avx512.h): its
// bytes followed what the heap held before, which glibc's MALLOC_PERTURB_ sets here. Threads
// change what the heap holds from run to run, so the bytes would too.
TEST_F(BranchThreads, X264WritesTheSameBytesWhateverTheHeapHeld) {
  if (!cpu_has_avx512()) GTEST_SKIP() << "x264 misreads with AVX-512 only, and this CPU has none";
  make_clip(in_ / "clip.mp4", {.seconds = 2, .audio = false});
  auto encoded = [&](const std::string& dir, const std::string& heap_byte) {
    ProcessResult ran =
        run_process({"env", "MALLOC_PERTURB_=" + heap_byte, transcode_binary(), "run",
                     in_ / "clip.mp4", "-q", "-o", dir + "/out.mp4", "--size", "426x240"});
    EXPECT_EQ(ran.exit_code, 0) << ran.err;
    EXPECT_NE(ran.out.find("without AVX-512"), std::string::npos) << ran.out;
    return packet_hashes(dir + "/out.mp4");
  };
  EXPECT_EQ(encoded(threaded_.path(), "1"), encoded(serial_.path(), "90"));
}

TEST_F(BranchThreads, GopChunksKeepAPackagesSegmentsAligned) {
  make_clip(in_ / "long.mp4", {.seconds = 6});
  ProcessResult ran = transcode({"run",
                                 in_ / "long.mp4",
                                 "--json",
                                 "-q",
                                 "--package",
                                 "hls",
                                 "--package-dir",
                                 threaded_ / "pkg",
                                 "--segment",
                                 "2",
                                 "-o",
                                 "hi",
                                 "--size",
                                 "320x240",
                                 "-o",
                                 "lo",
                                 "--size",
                                 "160x120",
                                 "--gop-parallel",
                                 "2"});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  json report = json::parse(ran.out, nullptr, false);
  for (const json& output : report["outputs"]) EXPECT_EQ(output["chunks"], 3) << output;
  for (const json& rendition : report["package"]["renditions"]) {
    EXPECT_TRUE(rendition["keyframes_aligned"].get<bool>()) << rendition;
    EXPECT_EQ(rendition["segments"], 3) << rendition;
  }
}

}  // namespace
}  // namespace tc::testing
