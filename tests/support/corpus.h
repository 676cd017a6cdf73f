// Sources that look like what customers upload, made with the ffmpeg CLI (an encoder we did not
// write): broadcast captures, surround rips, phone and screen recordings, mezzanines,
// multi-language files with messy metadata. Each maker writes one file (and may leave helper files
// beside it) and fails the calling test when ffmpeg refuses. Sources are short (2-6 s) and small
// (320x240 unless the case needs more) so that every output type can run over all of them in a
// test.
#pragma once

#include <string>

namespace tc::testing::corpus {

// A/V sync marks: a black picture with a white frame at each whole second, and a 1 kHz beep of one
// video frame's length at the same instants. `audio_lead_s` > 0 starts the audio track that much
// before the video (as a capture does); the marks stay simultaneous in presentation time, so a
// correct transcode keeps each flash with its beep. 25 fps, 48 kHz AAC stereo, H.264 GOP 25.
// `container` is a muxer name: "mpegts", "matroska", "mp4".
void flash_beep(const std::string& path, double seconds, double audio_lead_s,
                const std::string& container = "mpegts");

// A broadcast capture cut mid-GOP: an MPEG-TS (H.264 25 fps GOP 50, MP2 stereo, flash/beep marks,
// audio leading video by 0.5 s) whose first bytes were dropped at a 188-byte packet boundary inside
// a GOP, as a recorder that starts on a channel change writes it. The video starts on a non-key
// frame; the audio starts first.
void broadcast_ts_cut_mid_gop(const std::string& path);

// H.264 video with one surround track: codec "ac3" or "eac3", layout 5.1(side), 448 kb/s, in
// Matroska (as a Blu-ray or broadcast rip carries it). Each channel has its own tone.
void surround_51(const std::string& path, const std::string& codec);

// H.264 video with one MP2 stereo track in MPEG-TS (a DVB recording).
void mp2_ts(const std::string& path);

// A quiet source (about -38 LUFS, far from the -23/-16 targets) whose only audio track is
// `codec`: "aac" (mp4), "ac3" (mkv), "libopus" (mkv), "libmp3lame" (mp4), "flac" (mkv).
void quiet_audio(const std::string& path, const std::string& codec);

// A phone clip: MP4, H.264 1280x720 stored, shown rotated by `rotate_degrees` (90: portrait,
// 720x1280 displayed) through the display matrix, variable frame rate (30 fps with two dropped
// runs), AAC mono.
void phone_rotated_vfr(const std::string& path, int rotate_degrees = 90);

// A screen recording: MP4, H.264, frames only when the picture changes: bursts at 60 fps, then
// still gaps of 1.5 s, over 6 s. No audio.
void screen_recording_vfr(const std::string& path);

// A camera's high-rate burst: MP4, H.264 320x240 whose stream states 25 fps (the SPS's timing,
// which is the rate FFmpeg guesses for it) while its frames come at 25 fps for 2 s, then at
// 50 fps for 3 s (VFR, 200 frames). A package's GOP counted in the stated rate ends inside a
// segment of the burst: keyframes between segment boundaries. No audio.
void burst_over_stated_rate(const std::string& path);

// A mezzanine, 1280x720 25 fps 2 s, PCM s24le stereo, in QuickTime .mov: `pix_fmt`
// "yuv422p10le" (default) or "yuv444p10le"; `codec` "prores" (ProRes 422 HQ / 4444, as editors
// export; 4444 decodes as yuv444p12le) or "h264" (libx264 High 4:2:2 / High 4:4:4). H.264
// 4:2:2 10-bit is written in Matroska whatever `path` says: FFmpeg 5.1's mov muxer breaks it.
void mezzanine_10bit(const std::string& path, const std::string& pix_fmt = "yuv422p10le",
                     const std::string& codec = "prores");

// A 4K HDR10 camera clip: MP4, HEVC Main10 3840x2160 25 fps 2 s (libx265), BT.2020 primaries,
// PQ transfer, mastering display and content light level (SEI), AAC stereo.
void hdr10_hevc_4k(const std::string& path);

// HLG as broadcasters and phones write it: MP4, HEVC Main10 640x360 25 fps 2 s (libx265), BT.2020
// primaries and matrix, the VUI's transfer BT.2020 10-bit (14) and an alternative transfer
// characteristics SEI preferring ARIB STD-B67 (18, HLG). No audio.
void hlg_hevc_atc(const std::string& path);

// A multi-language rip in Matroska:
//   #0 video h264
//   #1 audio aac stereo, jpn "日本語"            (not default)
//   #2 audio aac stereo, eng "English"           (default)
//   #3 audio ac3 5.1(side), fra "Français 5.1"   (not default)
//   #4 subtitle subrip, eng "English (forced)"   (forced, default)
//   #5 subtitle subrip, eng "English SDH"
void three_languages_forced_subtitle(const std::string& path);

// Metadata as scraped files carry it: a title with quotes, a newline, '<&>' and a comma; a second
// audio track whose language tag is `en",URI="http://example.invalid/x` and whose title has a CR
// and a tab. Matroska (which stores tags as written).
void messy_metadata(const std::string& path);

}  // namespace tc::testing::corpus
