#include "pipeline/plan/text_plan.h"

#include <algorithm>

namespace tc {
namespace {

constexpr const char* kWebVttEncoder = "webvtt";

std::string rendition_name(int input_stream) {
  return "subs_" + std::to_string(input_stream);
}

const SubtitleInfo* subtitle_info(const MediaInfo& media, int input_stream) {
  auto found =
      std::find_if(media.subtitles.begin(), media.subtitles.end(),
                   [&](const SubtitleInfo& info) { return info.stream_index == input_stream; });
  return found == media.subtitles.end() ? nullptr : &*found;
}

// What becomes of subtitle track `track` in the package's output `outcome.output`.
void decide(const SubtitleInfo& track, bool wanted, StreamOutcome& outcome) {
  outcome.kept = false;
  outcome.action.clear();
  if (!wanted) {
    outcome.reason = "--subtitles none";
  } else if (!track.text) {
    outcome.reason = track.codec_name +
                     " is a bitmap subtitle: a package carries subtitles as WebVTT, which is text";
  } else if (outcome.output > 0) {
    outcome.reason = "the package carries it once, as the WebVTT rendition " +
                     rendition_name(track.stream_index);
  } else {
    bool styled = track.codec == AV_CODEC_ID_ASS || track.codec == AV_CODEC_ID_SSA;
    outcome.kept = true;
    outcome.action = "WebVTT rendition " + rendition_name(track.stream_index);
    outcome.reason = styled ? "converted by FFmpeg's webvtt encoder; ASS styling and positions "
                              "dropped, italic, bold and underline kept"
                            : "converted by FFmpeg's webvtt encoder";
  }
}

}  // namespace

void plan_package_subtitles(const JobSpec& spec, const MediaInfo& media, Plan& plan) {
  if (plan.outputs.empty()) return;
  for (OutputPlan& output : plan.outputs) output.subtitles.clear();
  bool wanted = spec.outputs.front().subtitles != SubtitleMode::kNone;
  for (StreamOutcome& outcome : plan.streams) {
    const SubtitleInfo* track =
        outcome.kind == "subtitle" ? subtitle_info(media, outcome.input_stream) : nullptr;
    if (!track) continue;
    decide(*track, wanted, outcome);
    if (outcome.kept)
      plan.outputs.front().subtitles.push_back({track->stream_index, kWebVttEncoder});
  }
}

void add_text_rendition_args(const Plan& plan, std::vector<std::string>& args) {
  if (!plan.package.on() || plan.outputs.empty()) return;
  for (const SubtitlePlan& subtitle : plan.outputs.front().subtitles) {
    std::string name = rendition_name(subtitle.input_stream);
    args.insert(args.end(),
                {"-map", "0:" + std::to_string(subtitle.input_stream), "-c:s", subtitle.encoder,
                 "-f", "webvtt", plan.package.dir + "/" + name + "/" + package::kWebVttDocument});
  }
}

std::string describe_text_renditions(const Plan& plan) {
  std::string text;
  if (plan.outputs.empty()) return text;
  for (const SubtitlePlan& subtitle : plan.outputs.front().subtitles) {
    std::string dir = plan.package.dir + "/" + rendition_name(subtitle.input_stream) + "/";
    text += "subtitle rendition: input stream #" + std::to_string(subtitle.input_stream) +
            " webvtt into " + dir + ", a " + plan.package.segment_name +
            ".vtt per video segment (HLS), " + package::kWebVttDocument + " (DASH)\n";
  }
  return text;
}

}  // namespace tc
