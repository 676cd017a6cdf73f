// What integration tests check media with: the ffmpeg and ffprobe CLIs (an oracle we did not
// write), and the binaries under test run as a user would run them.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tc::testing {

struct ProcessResult {
  int exit_code = -1;  // the signal number + 128 when killed
  std::string out;
  std::string err;
};

// Runs argv (no shell) and waits; stdout and stderr are captured.
ProcessResult run_process(const std::vector<std::string>& argv);

// The transcode binary under test (from $TC_TRANSCODE).
std::string transcode_binary();
ProcessResult transcode(std::vector<std::string> args);

// A fresh temporary directory, removed with its contents on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  std::vector<std::string> entries() const;  // names in it, sorted
  // Writes `text` to the file `name` in it; returns its path.
  std::string file(const std::string& name, const std::string& text = "x") const;

 private:
  std::string path_;
};

struct ClipOptions {
  int width = 320;
  int height = 240;
  int fps = 30;
  double seconds = 2;
  bool audio = true;
  std::string video_codec = "libx264";
  std::string audio_codec = "aac";
  std::string pattern = "testsrc2";      // the lavfi video source: "color=c=0x3050c0"
  std::vector<std::string> output_args;  // more options for the output, before its path
};
// Makes a test clip with lavfi testsrc2 (+ sine). Fails the test on error.
void make_clip(const std::string& path, const ClipOptions& options = {});

// A flat-coloured clip (no audio) in MPEG-TS whose timestamps start at `offset_s`, with no mux
// delay: clips made so and joined by join_files() continue each other's timestamps exactly (and
// a package's segment grid starts at 0). Fails the test on error.
void make_colour_ts(const std::string& path, const std::string& colour, int width, int height,
                    int fps, int seconds, int offset_s);
// The bytes of `first` then `second` in `joined`: a source whose size changes mid-stream, as a
// broadcast switching resolution sends it (the second's keyframe brings new parameter sets).
void join_files(const std::string& first, const std::string& second, const std::string& joined);

// An HLS rendition of the media file `clip` (ffmpeg's hls muxer): segments seg0.ts, seg1.ts...
// in `segment_dir`, and a playlist at `playlist` whose entries are each segment's name with
// `entry_prefix` before it (an absolute directory, "../elsewhere/", "file:///dir/"), as a
// playlist crafted to reach files beside or above it would be. Fails the test on error.
void make_hls(const std::string& clip, const std::string& segment_dir, const std::string& playlist,
              const std::string& entry_prefix);

// The bytes of the file at `path`; empty when it cannot be read.
std::string read_file(const std::string& path);

struct StreamInfo {
  std::string codec;
  int width = 0;
  int height = 0;
  int64_t frames = 0;   // counted by decoding
  int64_t packets = 0;  // counted by demuxing
  double duration_s = 0;
};
struct ProbeInfo {
  std::string format;
  std::optional<StreamInfo> video;
  std::optional<StreamInfo> audio;
};
// ffprobe with -count_frames; nullopt when ffprobe cannot read the file.
std::optional<ProbeInfo> ffprobe(const std::string& path);

// A 2 s clip with every kind of track a job must keep (made in `path`'s directory):
//   #0 video h264 320x240
//   #1 audio aac mono, eng "English", default
//   #2 audio ac3 5.1(side), fra "Français 5.1"
//   #3 subtitle subrip, eng
//   #4 subtitle ass, fra "Sous-titres", forced
// in Matroska (the one container that holds them all as they are). Fails the test on error.
void make_multitrack_clip(const std::string& path);

// One stream as ffprobe shows it.
struct TrackProbe {
  std::string type;  // "video", "audio", "subtitle"
  std::string codec;
  std::string channel_layout;
  int channels = 0;
  std::string language;
  std::string title;
  std::string handler_name;  // MP4 keeps track titles here
  bool is_default = false;
  bool forced = false;
  int64_t packets = 0;
};
// Every stream of `path`, in order; empty when ffprobe cannot read it.
std::vector<TrackProbe> probe_tracks(const std::string& path);

// PSNR (dB, average over frames) of `output` against `reference` scaled to the output's size by
// ffmpeg. -1 when it could not be measured.
double psnr(const std::string& output, const std::string& reference);

// A hash of every packet of the streams `map` selects ("0": all, "0:v": the video), as
// `ffmpeg -f framemd5` prints them: equal for the same bitstreams.
std::string packet_hashes(const std::string& path, const std::string& map = "0");

bool file_exists(const std::string& path);

// Runs `transcode ARGS` (output discarded) until `path` exists, then interrupts it as Ctrl-C
// would. Its exit code; -1 when `path` never appeared (it is killed then).
int interrupt_once_written(const std::vector<std::string>& args, const std::string& path);

}  // namespace tc::testing
