#include "tests/support/media_tools.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

extern char** environ;

namespace tc::testing {
namespace {

std::string read_all(int fd) {
  std::string text;
  char buffer[65536];
  for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) > 0;) text.append(buffer, n);
  return text;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv) {
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) return {};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  close(err[1]);
  ProcessResult result;
  if (spawned != 0) {
    close(out[0]);
    close(err[0]);
    result.err = "cannot start " + argv[0];
    return result;
  }
  std::thread err_reader([&] { result.err = read_all(err[0]); });
  result.out = read_all(out[0]);
  err_reader.join();
  close(out[0]);
  close(err[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

std::string transcode_binary() {
  const char* path = std::getenv("TC_TRANSCODE");
  return path ? path : "transcode";
}

ProcessResult transcode(std::vector<std::string> args) {
  args.insert(args.begin(), transcode_binary());
  return run_process(args);
}

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "tc-test-XXXXXX").string();
  path_ = mkdtemp(pattern.data()) ? pattern : "";
}

TempDir::~TempDir() {
  std::error_code ignored;
  if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
}

std::vector<std::string> TempDir::entries() const {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(path_))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string TempDir::file(const std::string& name, const std::string& text) const {
  std::string path = *this / name;
  std::ofstream(path) << text;
  return path;
}

void make_clip(const std::string& path, const ClipOptions& options) {
  std::string video = options.pattern +
                      (options.pattern.find('=') == std::string::npos ? "=" : ":") +
                      "size=" + std::to_string(options.width) + "x" +
                      std::to_string(options.height) + ":rate=" + std::to_string(options.fps);
  std::vector<std::string> argv{"ffmpeg", "-hide_banner", "-loglevel", "error", "-y",
                                "-f",     "lavfi",        "-i",        video};
  if (options.audio)
    argv.insert(argv.end(), {"-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000"});
  argv.insert(argv.end(), {"-t", std::to_string(options.seconds), "-pix_fmt", "yuv420p", "-c:v",
                           options.video_codec});
  if (options.video_codec == "libx264") argv.insert(argv.end(), {"-preset", "ultrafast"});
  if (options.audio) argv.insert(argv.end(), {"-c:a", options.audio_codec});
  argv.insert(argv.end(), options.output_args.begin(), options.output_args.end());
  argv.push_back(path);
  ProcessResult made = run_process(argv);
  ASSERT_EQ(made.exit_code, 0) << "ffmpeg could not make " << path << ": " << made.err;
}

void make_colour_ts(const std::string& path, const std::string& colour, int width, int height,
                    int fps, int seconds, int offset_s) {
  make_clip(path, {.width = width,
                   .height = height,
                   .fps = fps,
                   .seconds = double(seconds),
                   .audio = false,
                   .pattern = "color=c=" + colour,
                   .output_args = {"-muxdelay", "0", "-muxpreload", "0", "-output_ts_offset",
                                   std::to_string(offset_s)}});
}

void join_files(const std::string& first, const std::string& second, const std::string& joined) {
  std::ofstream(joined, std::ios::binary) << read_file(first) << read_file(second);
}

void make_hls(const std::string& clip, const std::string& segment_dir, const std::string& playlist,
              const std::string& entry_prefix) {
  std::string made_playlist = segment_dir + "/made.m3u8";
  ProcessResult made =
      run_process({"ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-i", clip, "-c", "copy",
                   "-f", "hls", "-hls_time", "1", "-hls_list_size", "0", "-hls_segment_filename",
                   segment_dir + "/seg%d.ts", made_playlist});
  ASSERT_EQ(made.exit_code, 0) << "ffmpeg could not make " << made_playlist << ": " << made.err;
  std::ifstream in(made_playlist);
  std::ofstream out(playlist);
  for (std::string line; std::getline(in, line);)
    out << (line.rfind("seg", 0) == 0 ? entry_prefix + line : line) << "\n";
  ASSERT_TRUE(out.good()) << "cannot write " << playlist;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::optional<ProbeInfo> ffprobe(const std::string& path) {
  ProcessResult probed = run_process({"ffprobe", "-v", "error", "-count_frames", "-count_packets",
                                      "-show_format", "-show_streams", "-of", "json", path});
  if (probed.exit_code != 0) return std::nullopt;
  nlohmann::json root = nlohmann::json::parse(probed.out, nullptr, false);
  if (root.is_discarded()) return std::nullopt;
  ProbeInfo info;
  info.format = root["format"].value("format_name", "");
  double format_duration = std::atof(root["format"].value("duration", "0").c_str());
  for (const auto& stream : root["streams"]) {
    StreamInfo parsed;
    parsed.codec = stream.value("codec_name", "");
    parsed.width = stream.value("width", 0);
    parsed.height = stream.value("height", 0);
    parsed.frames = std::atoll(stream.value("nb_read_frames", "0").c_str());
    parsed.packets = std::atoll(stream.value("nb_read_packets", "0").c_str());
    parsed.duration_s = std::atof(stream.value("duration", "0").c_str());
    if (parsed.duration_s == 0) parsed.duration_s = format_duration;
    std::string type = stream.value("codec_type", "");
    if (type == "video" && !info.video) info.video = parsed;
    if (type == "audio" && !info.audio) info.audio = parsed;
  }
  return info;
}

void make_multitrack_clip(const std::string& path) {
  std::string dir = path.substr(0, path.find_last_of('/') + 1);
  std::ofstream(dir + "tracks.srt") << "1\n00:00:00,200 --> 00:00:01,000\nHello\n\n"
                                       "2\n00:00:01,200 --> 00:00:01,800\nWorld\n";
  std::ofstream(dir + "tracks.ass")
      << "[Script Info]\nScriptType: v4.00+\nPlayResX: 320\nPlayResY: 240\n\n"
         "[V4+ Styles]\nFormat: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, "
         "OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, "
         "Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, "
         "Encoding\nStyle: Default,Arial,20,&H00FFFFFF,&H000000FF,&H00000000,&H00000000,0,0,0,0,"
         "100,100,0,0,1,1,0,2,10,10,10,1\n\n"
         "[Events]\nFormat: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, "
         "Text\nDialogue: 0,0:00:00.30,0:00:01.10,Default,,0,0,0,,Bonjour\n"
         "Dialogue: 0,0:00:01.20,0:00:01.90,Default,,0,0,0,,Monde\n";
  ProcessResult made = run_process(
      {"ffmpeg",
       "-hide_banner",
       "-loglevel",
       "error",
       "-y",
       "-f",
       "lavfi",
       "-i",
       "testsrc2=size=320x240:rate=30:duration=2",
       "-f",
       "lavfi",
       "-i",
       "sine=f=440:duration=2:sample_rate=48000",
       "-f",
       "lavfi",
       "-i",
       "sine=f=660:duration=2:sample_rate=44100,pan=5.1(side)|c0=c0|c1=c0|c2=c0|c3=c0|c4=c0|c5=c0",
       "-i",
       dir + "tracks.srt",
       "-i",
       dir + "tracks.ass",
       "-map",
       "0",
       "-map",
       "1",
       "-map",
       "2",
       "-map",
       "3",
       "-map",
       "4",
       "-c:v",
       "libx264",
       "-preset",
       "ultrafast",
       "-pix_fmt",
       "yuv420p",
       "-c:a:0",
       "aac",
       "-c:a:1",
       "ac3",
       "-c:s",
       "copy",
       "-metadata:s:a:0",
       "language=eng",
       "-metadata:s:a:0",
       "title=English",
       "-metadata:s:a:1",
       "language=fra",
       "-metadata:s:a:1",
       "title=Français 5.1",
       "-metadata:s:s:0",
       "language=eng",
       "-metadata:s:s:1",
       "language=fra",
       "-metadata:s:s:1",
       "title=Sous-titres",
       "-disposition:a:0",
       "default",
       "-disposition:a:1",
       "0",
       "-disposition:s:0",
       "0",
       "-disposition:s:1",
       "forced",
       path});
  ASSERT_EQ(made.exit_code, 0) << "ffmpeg could not make " << path << ": " << made.err;
}

std::vector<TrackProbe> probe_tracks(const std::string& path) {
  ProcessResult probed = run_process(
      {"ffprobe", "-v", "error", "-count_packets", "-show_streams", "-of", "json", path});
  if (probed.exit_code != 0) return {};
  nlohmann::json root = nlohmann::json::parse(probed.out, nullptr, false);
  if (root.is_discarded() || !root.contains("streams")) return {};
  std::vector<TrackProbe> tracks;
  for (const auto& stream : root["streams"]) {
    nlohmann::json tags = stream.value("tags", nlohmann::json::object());
    nlohmann::json disposition = stream.value("disposition", nlohmann::json::object());
    TrackProbe track;
    track.type = stream.value("codec_type", "");
    track.codec = stream.value("codec_name", "");
    track.channel_layout = stream.value("channel_layout", "");
    track.channels = stream.value("channels", 0);
    track.language = tags.value("language", "");
    track.title = tags.value("title", "");
    track.handler_name = tags.value("handler_name", "");
    track.is_default = disposition.value("default", 0) == 1;
    track.forced = disposition.value("forced", 0) == 1;
    track.packets = std::atoll(stream.value("nb_read_packets", "0").c_str());
    tracks.push_back(track);
  }
  return tracks;
}

double psnr(const std::string& output, const std::string& reference) {
  std::optional<ProbeInfo> info = ffprobe(output);
  if (!info || !info->video) return -1;
  std::string size = std::to_string(info->video->width) + ":" + std::to_string(info->video->height);
  ProcessResult measured = run_process(
      {"ffmpeg", "-hide_banner", "-nostats", "-i", output, "-i", reference, "-lavfi",
       "[1:v]scale=" + size + ",format=yuv420p[ref];[0:v]format=yuv420p[out];[out][ref]psnr", "-f",
       "null", "-"});
  std::smatch match;
  static const std::regex average("average:([0-9.]+|inf)");
  if (!std::regex_search(measured.err, match, average)) return -1;
  return match[1] == "inf" ? 100.0 : std::atof(match[1].str().c_str());
}

std::string packet_hashes(const std::string& path, const std::string& map) {
  ProcessResult hashed = run_process({"ffmpeg", "-hide_banner", "-loglevel", "error", "-i", path,
                                      "-map", map, "-c", "copy", "-f", "framemd5", "-"});
  EXPECT_EQ(hashed.exit_code, 0) << path << ": " << hashed.err;
  return hashed.out;
}

bool file_exists(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0;
}

int interrupt_once_written(const std::vector<std::string>& args, const std::string& path) {
  std::string binary = transcode_binary();
  std::vector<char*> argv{const_cast<char*>("transcode")};
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  for (int i = 0; i < 600 && !file_exists(path); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  bool written = file_exists(path);
  kill(pid, written ? SIGINT : SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!written) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace tc::testing
