#include "pipeline/plan/streams.h"

#include <algorithm>
#include <array>

extern "C" {
#include <libavformat/avformat.h>
}

#include "pipeline/core/compat.h"
#include "pipeline/plan/audio_format.h"

namespace tc {
namespace {

// What every stream decision needs about the output.
struct Target {
  const OutputSpec& spec;
  const std::string& container;  // "mp4", "mkv", "webm", "mpegts"
  const AVOutputFormat* muxer;
  size_t output;
};

StreamOutcome outcome_of(const Target& target, int index, std::string kind, std::string codec,
                         const TrackTags& tags = {}) {
  StreamOutcome outcome;
  outcome.output = target.output;
  outcome.input_stream = index;
  outcome.kind = std::move(kind);
  outcome.codec = std::move(codec);
  outcome.language = tags.language;
  outcome.title = tags.title;
  return outcome;
}

StreamOutcome kept(StreamOutcome outcome, std::string action, std::string reason = "") {
  outcome.kept = true;
  outcome.action = std::move(action);
  outcome.reason = std::move(reason);
  return outcome;
}

StreamOutcome dropped(StreamOutcome outcome, std::string reason) {
  outcome.kept = false;
  outcome.reason = std::move(reason);
  return outcome;
}

// The codecs FFmpeg's MPEG-TS muxer writes a stream type for (mpegtsenc.c): it has no codec
// table that avformat_query_codec could read, so that answers "unknown" for every codec.
constexpr std::array kMpegTsCodecs{
    AV_CODEC_ID_MPEG1VIDEO,  AV_CODEC_ID_MPEG2VIDEO, AV_CODEC_ID_MPEG4, AV_CODEC_ID_H264,
    AV_CODEC_ID_HEVC,        AV_CODEC_ID_VC1,        AV_CODEC_ID_MP2,   AV_CODEC_ID_MP3,
    AV_CODEC_ID_AAC,         AV_CODEC_ID_AAC_LATM,   AV_CODEC_ID_AC3,   AV_CODEC_ID_EAC3,
    AV_CODEC_ID_DTS,         AV_CODEC_ID_TRUEHD,     AV_CODEC_ID_OPUS,  AV_CODEC_ID_DVB_SUBTITLE,
    AV_CODEC_ID_DVB_TELETEXT};

bool container_takes(const Target& target, AVCodecID codec) {
  if (target.container == "mpegts")
    return std::find(kMpegTsCodecs.begin(), kMpegTsCodecs.end(), codec) != kMpegTsCodecs.end();
  // FFmpeg's mp4 muxer writes MPEG-1 Layer I/II audio, but it reads back as mp3 and browsers
  // refuse it: converted, as PCM is.
  if (target.container == "mp4" && (codec == AV_CODEC_ID_MP1 || codec == AV_CODEC_ID_MP2))
    return false;
  return av::muxer_takes_codec(target.muxer, codec);
}

// AC-3 and E-AC-3 in MP4: the muxer writes them (dac3/dec3) and Safari plays them, but Chromium
// and Firefox refuse the track (Chromium's MSE with it the whole file): --audio auto encodes
// them for browsers; --audio copy keeps them, for the players that take them.
bool browsers_refuse(const Target& target, AVCodecID codec) {
  return target.container == "mp4" && (codec == AV_CODEC_ID_AC3 || codec == AV_CODEC_ID_EAC3);
}

std::string cannot_hold(const Target& target, const std::string& codec) {
  return target.container + " cannot hold " + codec;
}

// Why the selection leaves `track` out; empty when it keeps it.
std::string deselected(const OutputSpec& spec, const MediaInfo& media, const AudioInfo& track) {
  const AudioTracks& tracks = spec.audio_tracks;
  if (spec.audio == AudioMode::kNone) return "--audio none";
  if (tracks.kind == AudioTracks::Kind::kFirst && &track != media.first_audio())
    return "--audio-tracks first";
  if (tracks.kind == AudioTracks::Kind::kLanguages && !tracks.keeps_language(track.tags.language))
    return "--audio-tracks " + name_of(tracks) + " (track language " +
           (track.tags.language.empty() ? "unset" : track.tags.language) + ")";
  return "";
}

// Why the output's own format options make `track` encoded; empty when they keep its format.
std::string reformat_reason(const OutputSpec& spec, const AudioInfo& track) {
  if (spec.audio_channels > 0 && spec.audio_channels != track.channels)
    return "--audio-channels " + std::to_string(spec.audio_channels);
  if (spec.audio_rate > 0 && spec.audio_rate != track.sample_rate)
    return "--audio-rate " + std::to_string(spec.audio_rate);
  return "";
}

// Why a track the container does not take is encoded.
std::string audio_refusal(const Target& target, const AudioInfo& track) {
  if (target.container == "mp4" &&
      (track.codec == AV_CODEC_ID_MP1 || track.codec == AV_CODEC_ID_MP2))
    return "mp4 players do not take " + track.codec_name + ": it reads back as mp3";
  if (browsers_refuse(target, track.codec))
    return "browsers do not play " + track.codec_name + " in mp4; --audio copy keeps it";
  return cannot_hold(target, track.codec_name);
}

Result<StreamOutcome> plan_audio_track(const Target& target, const MediaInfo& media,
                                       const AudioInfo& track, OutputPlan& output) {
  StreamOutcome outcome =
      outcome_of(target, track.stream_index, "audio", track.codec_name, track.tags);
  if (std::string why = deselected(target.spec, media, track); !why.empty())
    return dropped(std::move(outcome), why);
  bool takes = container_takes(target, track.codec);
  AudioMode mode = target.spec.audio;
  AVCodecID encoded = audio_codec_for(target.container);
  if (mode == AudioMode::kCopy && !takes)
    return Status(Code::kUnsupported, target.spec.path + ": " + target.container + " cannot hold " +
                                          track.codec_name + " audio; use --audio " +
                                          (encoded == AV_CODEC_ID_AAC ? "aac" : "auto"));
  if (mode == AudioMode::kAac && encoded != AV_CODEC_ID_AAC)
    return Status(Code::kUnsupported, target.spec.path + ": " + target.container +
                                          " cannot hold aac audio (it takes opus or vorbis); "
                                          "use --audio auto");
  AudioPlan audio;
  audio.input_stream = track.stream_index;
  Loudnorm loudnorm = target.spec.loudnorm;
  std::string reformat = reformat_reason(target.spec, track);
  if (loudnorm == Loudnorm::kOff && reformat.empty() &&
      (mode == AudioMode::kCopy ||
       (mode == AudioMode::kAuto && takes && !browsers_refuse(target, track.codec)))) {
    audio.mode = AudioPlan::Mode::kCopy;
    output.audio.push_back(audio);
    return kept(std::move(outcome), "copy");
  }
  audio.mode = AudioPlan::Mode::kEncode;
  TC_RETURN_IF_ERROR(plan_audio_format(target.spec, target.container, track, audio));
  output.audio.push_back(audio);
  std::string action = "encode " + std::string(avcodec_get_name(audio.codec));
  if (loudnorm != Loudnorm::kOff)  // a copy keeps the source's loudness
    return kept(std::move(outcome), action, "--loudnorm " + std::string(name_of(loudnorm)));
  if (mode == AudioMode::kAac) return kept(std::move(outcome), action, "--audio aac");
  if (!reformat.empty() && takes) return kept(std::move(outcome), action, reformat);
  return kept(std::move(outcome), action, audio_refusal(target, track));
}

// The text subtitle format a container holds when it cannot take the source's as it is.
std::string text_subtitle_encoder(const std::string& container) {
  if (container == "mp4") return "mov_text";
  if (container == "mkv") return "srt";
  if (container == "webm") return "webvtt";
  return "";  // MPEG-TS has none
}

StreamOutcome plan_subtitle_track(const Target& target, const SubtitleInfo& track,
                                  OutputPlan& output) {
  StreamOutcome outcome =
      outcome_of(target, track.stream_index, "subtitle", track.codec_name, track.tags);
  if (target.spec.subtitles == SubtitleMode::kNone)
    return dropped(std::move(outcome), "--subtitles none");
  if (container_takes(target, track.codec)) {
    output.subtitles.push_back({track.stream_index, ""});
    return kept(std::move(outcome), "copy");
  }
  std::string encoder = track.text ? text_subtitle_encoder(target.container) : "";
  if (!encoder.empty()) {
    output.subtitles.push_back({track.stream_index, encoder});
    return kept(std::move(outcome), "convert to " + encoder,
                target.container + " holds text subtitles as " + encoder);
  }
  if (track.text && target.container == "mpegts")
    return dropped(std::move(outcome), "MPEG-TS cannot carry text subtitles");
  return dropped(std::move(outcome), cannot_hold(target, track.codec_name));
}

StreamOutcome plan_other_stream(const Target& target, const OtherStreamInfo& stream) {
  StreamOutcome outcome = outcome_of(target, stream.stream_index, stream.kind, stream.codec_name);
  if (stream.kind == "video")
    return dropped(std::move(outcome), "a job transcodes one video stream (the main one)");
  return dropped(std::move(outcome), stream.kind + " streams are not carried");
}

StreamOutcome video_outcome(const Target& target, const VideoInfo& video,
                            const OutputPlan& output) {
  StreamOutcome outcome = outcome_of(target, video.stream_index, "video", video.codec_name);
  if (output.video_copy) return kept(std::move(outcome), "copy");
  return kept(std::move(outcome), "encode " + output.video.encoder);
}

}  // namespace

Status plan_streams(const OutputSpec& spec, const std::string& container, const MediaInfo& media,
                    size_t output_index, OutputPlan& output, std::vector<StreamOutcome>& outcomes) {
  Target target{spec, container, av_guess_format(output.format.c_str(), nullptr, nullptr),
                output_index};
  // WebM holds VP8, VP9 and AV1 only (Matroska's other codecs are refused by its muxer).
  if (container == "webm" && media.video && output.video_copy &&
      !container_takes(target, media.video->codec))
    return Status(Code::kInput, spec.path + ": " + container + " cannot hold the source's " +
                                    media.video->codec_name + " video; use --codec " +
                                    std::string(name_of(default_codec(spec))));
  std::vector<StreamOutcome> mine;
  if (media.video) mine.push_back(video_outcome(target, *media.video, output));
  for (const AudioInfo& track : media.audio) {
    TC_ASSIGN_OR_RETURN(StreamOutcome outcome, plan_audio_track(target, media, track, output));
    mine.push_back(std::move(outcome));
  }
  // Each kept track costs a decoder and an encoder (about 1.35 MB each for AAC): a small file of
  // 999 empty tracks took 1.35 GB. Past the bound the source is refused as input, not run.
  if (output.audio.size() > kMaxKeptAudioTracks)
    return Status(Code::kInput, media.path + ": " + std::to_string(output.audio.size()) +
                                    " audio tracks to keep, more than a job opens (" +
                                    std::to_string(kMaxKeptAudioTracks) +
                                    "): choose some with --audio-tracks");
  if (spec.audio_tracks.kind == AudioTracks::Kind::kLanguages && output.audio.empty() &&
      !media.audio.empty() && spec.audio != AudioMode::kNone)
    return Status(Code::kInput, media.path + " has no audio track in " +
                                    name_of(spec.audio_tracks) + " (--audio-tracks)");
  for (const SubtitleInfo& track : media.subtitles)
    mine.push_back(plan_subtitle_track(target, track, output));
  for (const OtherStreamInfo& stream : media.other_streams)
    mine.push_back(plan_other_stream(target, stream));
  std::sort(mine.begin(), mine.end(), [](const StreamOutcome& a, const StreamOutcome& b) {
    return a.input_stream < b.input_stream;
  });
  outcomes.insert(outcomes.end(), mine.begin(), mine.end());
  return Status::ok();
}

std::vector<int> encoded_audio_streams(const std::vector<OutputPlan>& outputs) {
  std::vector<int> streams;
  for (const OutputPlan& output : outputs)
    for (const AudioPlan& audio : output.audio)
      if (audio.mode == AudioPlan::Mode::kEncode &&
          std::find(streams.begin(), streams.end(), audio.input_stream) == streams.end())
        streams.push_back(audio.input_stream);
  std::sort(streams.begin(), streams.end());
  return streams;
}

std::string StreamOutcome::text() const {
  std::string text = kept ? "kept: " + action : std::string("dropped");
  if (reason.empty()) return text;
  return kept ? text + " (" + reason + ")" : text + ": " + reason;
}

}  // namespace tc
