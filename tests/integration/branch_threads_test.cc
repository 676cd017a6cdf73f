// Branch threads (issue 15): each output encodes and muxes on its own thread, fed in order, so
// what it writes is what the serial executor (`transcode run --serial`) writes. The software
// encoders are deterministic (libx264 frame threads, the native AAC encoder), so every packet
// must match, byte for byte: ffmpeg's framemd5 of every stream of every output, and every file
// of a package.
#include <gtest/gtest.h>
#include <sched.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>

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

// Where one segment of a fragmented-MP4 HLS rendition begins: its first video packet's
// presentation time and whether that packet is a keyframe (ffprobe's flags).
struct SegmentStart {
  double pts_s = -1;
  bool keyframe = false;
};

// Every segment the rendition's index.m3u8 lists, in order, each read by ffprobe behind the
// rendition's init.mp4.
std::vector<SegmentStart> segment_starts(const std::string& rendition_dir) {
  std::vector<SegmentStart> starts;
  std::string init = read_file(rendition_dir + "/init.mp4");
  std::istringstream playlist(read_file(rendition_dir + "/index.m3u8"));
  TempDir scratch;
  for (std::string line; std::getline(playlist, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::string joined = scratch / "segment.mp4";
    std::ofstream(joined, std::ios::binary) << init << read_file(rendition_dir + "/" + line);
    ProcessResult probed =
        run_process({"ffprobe", "-v", "error", "-select_streams", "v", "-show_entries",
                     "packet=pts_time,flags", "-read_intervals", "%+#1", "-of", "csv=p=0", joined});
    SegmentStart start;
    size_t comma = probed.out.find(',');
    if (probed.exit_code == 0 && comma != std::string::npos) {
      start.pts_s = std::atof(probed.out.c_str());
      start.keyframe = probed.out[comma + 1] == 'K';
    }
    starts.push_back(start);
  }
  return starts;
}

// The first two CPUs this process may run on, as taskset -c takes them ("3,5"); "" with fewer.
std::string first_two_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return "";
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE && cpus.size() < 2; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  return cpus.size() < 2 ? "" : std::to_string(cpus[0]) + "," + std::to_string(cpus[1]);
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
  // The pipeline's threads the report names: the demux and decode thread, the video graph's, one
  // per output, and every output did work. (Their busy and blocked times are clock readings:
  // the decode thread's busy is defined as wall - blocked, so no sum of them is checked here.)
  std::vector<std::string> names;
  for (const json& thread : threaded["threads"]) {
    names.push_back(thread["name"]);
    EXPECT_GE(thread["blocked_s"].get<double>(), 0) << thread;
    if (names.back().rfind("out", 0) == 0) {
      EXPECT_GT(thread["busy_s"].get<double>(), 0) << thread;
    }
  }
  EXPECT_EQ(names, (std::vector<std::string>{"decode", "video graph", "out0", "out1", "out2"}));
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
// (plan/gop_parallel.h): 320x240 has 80 % of this job's, 160x120 20 %. Run on two cores (its
// affinity), x264's auto would give every encoder 3 threads (1.5 a core); by share the big
// output's two encoders get 2 each (2 threads a core of its 80 %, capped at 1.5 a core, split in
// two) and the small one's 1. What x264 itself says it ran with is the check, against literals.
TEST_F(BranchThreads, X264RunsWithItsShareOfTheCores) {
  std::string two_cores = first_two_cores();
  if (two_cores.empty()) GTEST_SKIP() << "needs two cores to run on";
  ProcessResult ran =
      run_process({"taskset", "-c", two_cores, transcode_binary(), "run", in_ / "tracks.mkv", "-q",
                   "--audio", "none", "--gop", "12", "--gop-parallel", "2", "-o",
                   threaded_ / "big.mkv", "-o", threaded_ / "small.mkv", "--size", "160x120"});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_EQ(x264_threads_in(threaded_ / "big.mkv"), 2);
  EXPECT_EQ(x264_threads_in(threaded_ / "small.mkv"), 1);
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
  // Read back from the files, not the report: each rendition's playlist lists 3 segments, each
  // segment starts on a keyframe, at 0, 2 and 4 s (the first frame's presentation delay
  // aside), and the two renditions' segments start at the same times.
  std::vector<SegmentStart> hi = segment_starts(threaded_ / "pkg/hi");
  std::vector<SegmentStart> lo = segment_starts(threaded_ / "pkg/lo");
  ASSERT_EQ(hi.size(), 3u);
  ASSERT_EQ(lo.size(), 3u);
  for (size_t k = 0; k < 3; ++k) {
    SCOPED_TRACE("segment " + std::to_string(k));
    EXPECT_TRUE(hi[k].keyframe);
    EXPECT_TRUE(lo[k].keyframe);
    // fMP4 media times are the source's plus 1.4 s (segment_container.h).
    EXPECT_NEAR(hi[k].pts_s - 1.4, 2.0 * double(k), 0.1);
    EXPECT_NEAR(hi[k].pts_s, lo[k].pts_s, 1e-3);
  }
}

}  // namespace
}  // namespace tc::testing
