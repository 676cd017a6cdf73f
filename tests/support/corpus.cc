#include "tests/support/corpus.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdint>
#include <fstream>
#include <vector>

#include "tests/support/media_tools.h"

namespace tc::testing::corpus {
namespace {

// Runs ffmpeg with `args` (after -hide_banner -loglevel error -y); fails the test when it fails.
void ffmpeg(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"ffmpeg", "-hide_banner", "-loglevel", "error", "-y"};
  argv.insert(argv.end(), args.begin(), args.end());
  ProcessResult made = run_process(argv);
  ASSERT_EQ(made.exit_code, 0) << made.err;
}

std::string number(double value) {
  return std::to_string(value);
}

// The video of the sync marks: black, with a whole white frame at each whole second.
std::string flash_video(double seconds) {
  return "color=c=black:s=320x240:r=25:d=" + number(seconds) +
         ",drawbox=x=0:y=0:w=iw:h=ih:color=white:t=fill:enable='lt(mod(t,1),0.04)'";
}

// The audio of the sync marks: silence, with 40 ms of 1 kHz from `lead_s` + each whole second
// (so that each beep meets its flash once the video starts `lead_s` later).
std::string beep_audio(double seconds, double lead_s) {
  std::string lead = number(lead_s);
  std::string beep =
      "if(gte(t," + lead + ")*lt(mod(t-" + lead + ",1),0.04),0.5*sin(2*PI*1000*t),0)";
  return "aevalsrc=exprs='" + beep + "|" + beep +
         "':s=48000:c=stereo:d=" + number(seconds + lead_s);
}

void flash_beep_with(const std::string& path, double seconds, double audio_lead_s,
                     const std::string& container, const std::vector<std::string>& codecs) {
  std::vector<std::string> args = {"-itsoffset", number(audio_lead_s),
                                   "-f",         "lavfi",
                                   "-i",         flash_video(seconds),
                                   "-f",         "lavfi",
                                   "-i",         beep_audio(seconds, audio_lead_s)};
  args.insert(args.end(), codecs.begin(), codecs.end());
  args.insert(args.end(), {"-f", container, path});
  ffmpeg(args);
}

std::string tone(int hz) {
  return "sin(2*PI*" + std::to_string(hz) + "*t)/4";
}

}  // namespace

void flash_beep(const std::string& path, double seconds, double audio_lead_s,
                const std::string& container) {
  flash_beep_with(path, seconds, audio_lead_s, container,
                  {"-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-pix_fmt", "yuv420p",
                   "-c:a", "aac", "-b:a", "128k"});
}

void broadcast_ts_cut_mid_gop(const std::string& path) {
  std::string whole = path + ".whole.ts";
  flash_beep_with(whole, 6, 0.5, "mpegts",
                  {"-c:v", "libx264", "-preset", "ultrafast", "-g", "50", "-keyint_min", "50",
                   "-sc_threshold", "0", "-pix_fmt", "yuv420p", "-c:a", "mp2", "-b:a", "192k"});
  std::string bytes = read_file(whole);
  ASSERT_GT(bytes.size(), 188u * 100);
  // A third of the way in is inside the first GOP's P-frames (keyframes every 2 s from 0.5 s).
  size_t cut = bytes.size() / 4 / 188 * 188;
  std::ofstream(path, std::ios::binary).write(bytes.data() + cut, bytes.size() - cut);
}

void surround_51(const std::string& path, const std::string& codec) {
  std::string channels = tone(300) + "|" + tone(400) + "|" + tone(500) + "|" + tone(80) + "|" +
                         tone(600) + "|" + tone(700);
  ffmpeg({"-f",       "lavfi",
          "-i",       "testsrc2=size=320x240:rate=25:duration=3",
          "-f",       "lavfi",
          "-i",       "aevalsrc=exprs='" + channels + "':s=48000:c=5.1(side):d=3",
          "-c:v",     "libx264",
          "-preset",  "ultrafast",
          "-pix_fmt", "yuv420p",
          "-c:a",     codec,
          "-b:a",     "448k",
          "-f",       "matroska",
          path});
}

void mp2_ts(const std::string& path) {
  ffmpeg({"-f",      "lavfi",     "-i",       "testsrc2=size=320x240:rate=25:duration=3",
          "-f",      "lavfi",     "-i",       "sine=f=440:duration=3:sample_rate=48000",
          "-ac",     "2",         "-c:v",     "libx264",
          "-preset", "ultrafast", "-pix_fmt", "yuv420p",
          "-c:a",    "mp2",       "-b:a",     "192k",
          "-f",      "mpegts",    path});
}

void quiet_audio(const std::string& path, const std::string& codec) {
  bool mp4 = codec == "aac" || codec == "libmp3lame";
  ffmpeg(
      {"-f",      "lavfi",     "-i",       "testsrc2=size=320x240:rate=25:duration=4",
       "-f",      "lavfi",     "-i",       "sine=f=440:duration=4:sample_rate=48000,volume=-20dB",
       "-ac",     "2",         "-c:v",     "libx264",
       "-preset", "ultrafast", "-pix_fmt", "yuv420p",
       "-c:a",    codec,       "-f",       mp4 ? "mp4" : "matroska",
       path});
}

namespace {

void put_be32(std::string& bytes, size_t at, int32_t value) {
  for (int i = 0; i < 4; ++i) bytes[at + i] = static_cast<char>(uint32_t(value) >> (24 - 8 * i));
}

// Writes a display matrix rotating by `degrees` (90, 180, 270: clockwise, as phones record) into
// the first track header (the video's) of the MP4 `path`: FFmpeg 5.1's CLI cannot set one, and a
// phone writes exactly this (ISO/IEC 14496-12 8.3.2, the tkhd matrix {a b u c d v x y w}).
void rotate_first_track(const std::string& path, int degrees, int stored_width, int stored_height) {
  std::string bytes = read_file(path);
  size_t tkhd = bytes.find("tkhd");
  ASSERT_NE(tkhd, std::string::npos);
  size_t matrix = tkhd + (bytes[tkhd + 4] == 1 ? 56 : 44);
  const int32_t one = 0x10000;
  int32_t a = 0, b = 0, c = 0, d = 0, x = 0, y = 0;
  if (degrees == 90) b = one, c = -one, x = stored_height * one;
  if (degrees == 180) a = -one, d = -one, x = stored_width * one, y = stored_height * one;
  if (degrees == 270) b = -one, c = one, y = stored_width * one;
  int32_t values[9] = {a, b, 0, c, d, 0, x, y, 0x40000000};
  for (int i = 0; i < 9; ++i) put_be32(bytes, matrix + 4 * i, values[i]);
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), bytes.size());
}

}  // namespace

void phone_rotated_vfr(const std::string& path, int rotate_degrees) {
  ffmpeg(
      {"-f",
       "lavfi",
       "-i",
       "testsrc2=size=1280x720:rate=30:duration=4,select='not(between(n,20,34)+between(n,70,80))'",
       "-f",
       "lavfi",
       "-i",
       "sine=f=440:duration=4:sample_rate=44100",
       "-fps_mode",
       "vfr",
       "-c:v",
       "libx264",
       "-preset",
       "ultrafast",
       "-pix_fmt",
       "yuv420p",
       "-c:a",
       "aac",
       "-ac",
       "1",
       "-f",
       "mp4",
       path});
  rotate_first_track(path, rotate_degrees, 1280, 720);
}

void screen_recording_vfr(const std::string& path) {
  ffmpeg({"-f", "lavfi", "-i", "testsrc2=size=640x360:rate=60:duration=6,select='lt(mod(t,2),0.5)'",
          "-fps_mode", "vfr", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
          "-f", "mp4", path});
}

void burst_over_stated_rate(const std::string& path) {
  // From 2 s on, the timestamps advance at half speed: 20 ms apart. h264_metadata writes the
  // stated rate into the SPS (tick_rate = 2 x fps).
  ffmpeg({"-f", "lavfi", "-i",
          "testsrc2=size=320x240:rate=25:duration=8,settb=1/1000,"
          "setpts='if(lt(T,2),PTS,(2+(T-2)/2)/TB)'",
          "-fps_mode", "vfr", "-enc_time_base", "-1", "-c:v", "libx264", "-preset", "ultrafast",
          "-pix_fmt", "yuv420p", "-bsf:v", "h264_metadata=tick_rate=50", "-f", "mp4", path});
}

void mezzanine_10bit(const std::string& path, const std::string& pix_fmt,
                     const std::string& codec) {
  bool chroma444 = pix_fmt.rfind("yuv444", 0) == 0;
  std::vector<std::string> video =
      codec == "prores"
          ? std::vector<std::string>{"-c:v", "prores_ks", "-profile:v", chroma444 ? "4" : "3"}
          : std::vector<std::string>{"-c:v",     "libx264",    "-preset",
                                     "veryfast", "-profile:v", chroma444 ? "high444" : "high422"};
  std::vector<std::string> args = {
      "-f",  "lavfi", "-i",       "testsrc2=size=1280x720:rate=25:duration=2",
      "-f",  "lavfi", "-i",       "sine=f=440:duration=2:sample_rate=48000",
      "-ac", "2",     "-pix_fmt", pix_fmt};
  args.insert(args.end(), video.begin(), video.end());
  // FFmpeg 5.1's mov muxer rewrites the avcC of H.264 High 4:2:2 10-bit so that its decoder
  // misreads every slice (most frames lost): that mezzanine goes into Matroska, unchanged.
  bool avcc_breaks = codec == "h264" && pix_fmt == "yuv422p10le";
  args.insert(args.end(), {"-c:a", "pcm_s24le", "-f", avcc_breaks ? "matroska" : "mov", path});
  ffmpeg(args);
}

void hdr10_hevc_4k(const std::string& path) {
  ffmpeg({"-f",
          "lavfi",
          "-i",
          "testsrc2=size=3840x2160:rate=25:duration=2",
          "-f",
          "lavfi",
          "-i",
          "sine=f=440:duration=2:sample_rate=48000",
          "-ac",
          "2",
          "-pix_fmt",
          "yuv420p10le",
          "-c:v",
          "libx265",
          "-preset",
          "ultrafast",
          "-tag:v",
          "hvc1",
          "-x265-params",
          "log-level=error:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc:"
          "master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1):"
          "max-cll=1000,400",
          "-c:a",
          "aac",
          "-f",
          "mp4",
          path});
}

void hlg_hevc_atc(const std::string& path) {
  ffmpeg({"-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25:duration=2", "-pix_fmt",
          "yuv420p10le", "-c:v", "libx265", "-preset", "ultrafast", "-tag:v", "hvc1",
          "-x265-params",
          "log-level=error:colorprim=bt2020:transfer=bt2020-10:colormatrix=bt2020nc:atc-sei=18",
          "-f", "mp4", path});
}

namespace {

std::string subtitle_file(const std::string& path, const std::string& name,
                          const std::string& text) {
  std::string file = path + "." + name + ".srt";
  std::ofstream(file) << "1\n00:00:00,200 --> 00:00:01,000\n"
                      << text << "\n\n"
                      << "2\n00:00:01,200 --> 00:00:01,800\n"
                      << text << " 2\n";
  return file;
}

}  // namespace

void three_languages_forced_subtitle(const std::string& path) {
  ffmpeg({"-f",
          "lavfi",
          "-i",
          "testsrc2=size=320x240:rate=25:duration=2",
          "-f",
          "lavfi",
          "-i",
          "sine=f=330:duration=2:sample_rate=48000",
          "-f",
          "lavfi",
          "-i",
          "sine=f=440:duration=2:sample_rate=48000",
          "-f",
          "lavfi",
          "-i",
          "aevalsrc=exprs='" + tone(500) + "|" + tone(500) + "|" + tone(500) + "|" + tone(80) +
              "|" + tone(500) + "|" + tone(500) + "':s=48000:c=5.1(side):d=2",
          "-i",
          subtitle_file(path, "forced", "Sign"),
          "-i",
          subtitle_file(path, "sdh", "[door creaks]"),
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
          "-map",
          "5",
          "-c:v",
          "libx264",
          "-preset",
          "ultrafast",
          "-pix_fmt",
          "yuv420p",
          "-c:a:0",
          "aac",
          "-ac:a:0",
          "2",
          "-c:a:1",
          "aac",
          "-ac:a:1",
          "2",
          "-c:a:2",
          "ac3",
          "-c:s",
          "srt",
          "-metadata:s:a:0",
          "language=jpn",
          "-metadata:s:a:0",
          "title=日本語",
          "-metadata:s:a:1",
          "language=eng",
          "-metadata:s:a:1",
          "title=English",
          "-metadata:s:a:2",
          "language=fra",
          "-metadata:s:a:2",
          "title=Français 5.1",
          "-metadata:s:s:0",
          "language=eng",
          "-metadata:s:s:0",
          "title=English (forced)",
          "-metadata:s:s:1",
          "language=eng",
          "-metadata:s:s:1",
          "title=English SDH",
          "-disposition:a:0",
          "0",
          "-disposition:a:1",
          "default",
          "-disposition:a:2",
          "0",
          "-disposition:s:0",
          "default+forced",
          "-disposition:s:1",
          "0",
          "-f",
          "matroska",
          path});
}

void messy_metadata(const std::string& path) {
  ffmpeg({"-f",
          "lavfi",
          "-i",
          "testsrc2=size=320x240:rate=25:duration=2",
          "-f",
          "lavfi",
          "-i",
          "sine=f=440:duration=2:sample_rate=48000",
          "-f",
          "lavfi",
          "-i",
          "sine=f=550:duration=2:sample_rate=48000",
          "-map",
          "0",
          "-map",
          "1",
          "-map",
          "2",
          "-c:v",
          "libx264",
          "-preset",
          "ultrafast",
          "-pix_fmt",
          "yuv420p",
          "-c:a",
          "aac",
          "-metadata",
          "title=He said \"hi\",\nthen <left> & went",
          "-metadata:s:a:0",
          "language=eng",
          "-metadata:s:a:1",
          "language=en\",URI=\"http://example.invalid/x",
          "-metadata:s:a:1",
          "title=Commentary\r\n\tby \"the\" director",
          "-f",
          "matroska",
          path});
}

}  // namespace tc::testing::corpus
