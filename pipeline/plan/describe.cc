// Plans as text: for people (--dry-run, logs) and as the equivalent ffmpeg command line.
#include <sstream>

extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/macros.h>
#include <libavutil/pixdesc.h>
}

#include "pipeline/hw/backends.h"
#include "pipeline/plan/plan.h"
#include "pipeline/plan/refit_plan.h"
#include "pipeline/plan/stages.h"
#include "pipeline/plan/text_plan.h"

namespace tc {
namespace {

// Single-quotes an argument for a POSIX shell when it needs it.
std::string shell_quote(const std::string& arg) {
  if (!arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789-_./:=+,") == std::string::npos)
    return arg;
  std::string quoted = "'";
  for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

std::string seconds(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

void add_encoder_args(const OutputPlan& output, std::vector<std::string>& args) {
  const VideoEncodePlan& video = output.video;
  args.insert(args.end(), {"-c:v", video.encoder});
  for (const auto& [key, value] : video.options) args.insert(args.end(), {"-" + key, value});
  if (video.bit_rate) args.insert(args.end(), {"-b:v", std::to_string(video.bit_rate)});
  if (video.max_rate) args.insert(args.end(), {"-maxrate", std::to_string(video.max_rate)});
  if (video.buffer_size) args.insert(args.end(), {"-bufsize", std::to_string(video.buffer_size)});
  args.insert(args.end(), {"-g", std::to_string(video.gop)});
  if (video.max_b_frames >= 0) args.insert(args.end(), {"-bf", std::to_string(video.max_b_frames)});
  if (video.codes_fields) args.insert(args.end(), {"-flags", "+ildct+ilme"});
}

const StreamOutcome* outcome_of(const Plan& plan, size_t output, int input_stream) {
  for (const StreamOutcome& outcome : plan.streams)
    if (outcome.output == output && outcome.input_stream == input_stream) return &outcome;
  return nullptr;
}

// "-map" and codec for one kept track, and its language and title, which a filtered stream
// does not inherit from the input.
void add_track_args(const Plan& plan, size_t k, int input_stream, const std::string& type, size_t n,
                    std::vector<std::string>& args) {
  std::string specifier = ":" + type + ":" + std::to_string(n);
  if (const StreamOutcome* outcome = outcome_of(plan, k, input_stream)) {
    if (!outcome->language.empty())
      args.insert(args.end(), {"-metadata:s" + specifier, "language=" + outcome->language});
    if (!outcome->title.empty())
      args.insert(args.end(), {"-metadata:s" + specifier, "title=" + outcome->title});
    // The MP4 muxer writes no title: the job keeps it as the handler name (exec/output.cc).
    if (!outcome->title.empty() && plan.outputs[k].format == "mp4")
      args.insert(args.end(), {"-metadata:s" + specifier, "handler_name=" + outcome->title});
  }
}

// The sink feeding output `output`'s audio track `track` (its AudioPlan's index).
std::string audio_sink(const Plan& plan, int input_stream, size_t output, size_t track) {
  for (const Plan::AudioGraph& audio : plan.audio_graphs)
    if (audio.input_stream == input_stream)
      for (const GraphSink& sink : audio.graph.sinks)
        if (sink.output == output && sink.audio == track) return sink.label;
  return "";
}

void add_audio_args(const Plan& plan, size_t k, std::vector<std::string>& args) {
  const OutputPlan& output = plan.outputs[k];
  for (size_t n = 0; n < output.audio.size(); ++n) {
    const AudioPlan& audio = output.audio[n];
    std::string index = std::to_string(n);
    if (audio.mode == AudioPlan::Mode::kCopy)
      args.insert(args.end(),
                  {"-map", "0:" + std::to_string(audio.input_stream), "-c:a:" + index, "copy"});
    else
      args.insert(args.end(),
                  {"-map", "[" + audio_sink(plan, audio.input_stream, k, n) + "]", "-c:a:" + index,
                   audio.encoder, "-b:a:" + index, std::to_string(audio.bit_rate)});
    add_track_args(plan, k, audio.input_stream, "a", n, args);
  }
}

void add_subtitle_args(const Plan& plan, size_t k, std::vector<std::string>& args) {
  if (plan.package.on()) return;  // WebVTT renditions: add_text_rendition_args
  const OutputPlan& output = plan.outputs[k];
  for (size_t n = 0; n < output.subtitles.size(); ++n) {
    const SubtitlePlan& subtitle = output.subtitles[n];
    args.insert(args.end(),
                {"-map", "0:" + std::to_string(subtitle.input_stream), "-c:s:" + std::to_string(n),
                 subtitle.encoder.empty() ? "copy" : subtitle.encoder});
    add_track_args(plan, k, subtitle.input_stream, "s", n, args);
  }
}

std::string color_name(const ColorTags& color) {
  auto name = [](const char* text) { return std::string(text ? text : "?"); };
  return name(av_color_primaries_name(color.primaries)) + "/" +
         name(av_color_transfer_name(color.transfer)) + "/" +
         name(av_color_space_name(color.matrix)) + "/" + name(av_color_range_name(color.range));
}

// Where libx265 / libsvtav1 take the HDR10 values as parameters and the container declared none,
// the command line above lacks them: the run takes the first frame's (in-band SEI).
std::string hdr_params_note(const VideoEncodePlan& video) {
  if (video.hw_frames || video.hdr_params_declared ||
      software_encoder(video.codec).hdr_params == HdrParamsSyntax::kNone)
    return "";
  return " (the container declares no values: " + video.encoder +
         " gets the first frame's at run time, which the ffmpeg command cannot)";
}

// "yuv420p10le (10-bit 4:2:0, Main 10), bt2020/smpte2084/bt2020nc/tv, HDR metadata carried"
std::string format_line(const VideoEncodePlan& video) {
  const VideoFormatPlan& format = video.format;
  std::string line =
      std::string(av_get_pix_fmt_name(video.pix_fmt)) + " (" + std::to_string(format.bit_depth) +
      "-bit " + std::string(name_of(format.chroma)) +
      (format.profile.empty() ? "" : ", " + format.profile) + "), " + color_name(format.color);
  if (format.hdr_metadata) line += ", HDR metadata carried" + hdr_params_note(video);
  if (format.to_sdr) line += ", converted to SDR BT.709 by " + format.to_sdr_where;
  if (video.progressive) line += ", progressive";
  if (video.field_order != AV_FIELD_UNKNOWN)
    line += std::string(", fields kept (") + std::string(field_order_name(video.field_order)) + ")";
  if (video.frame_rate.num > 0)
    line += ", " + std::to_string(video.frame_rate.num) +
            (video.frame_rate.den == 1 ? "" : "/" + std::to_string(video.frame_rate.den)) +
            " fps (frames dropped or repeated: the nearest source frame)";
  return line;
}

// The ffmpeg CLI has no sprite sheets with an index: the nearest is a JPEG per chosen tile.
void add_thumbnail_args(const Plan& plan, std::vector<std::string>& args) {
  const ThumbnailPlan& thumbnails = plan.thumbnails;
  if (!thumbnails.on) return;
  args.insert(args.end(), {"-map", "[thumbs]", "-fps_mode", "vfr", "-c:v", thumbnails.encoder,
                           "-q:v", "3", thumbnails.dir + "/thumb_%05d.jpg"});
}

// The label of the CLI graph's sink for output `output`: after the download, where the output
// downloads its frames itself.
std::string cli_sink(const FilterGraphPlan& graph, size_t output) {
  const GraphSink* sink = graph.sink_of(output);
  if (!sink) return {};
  return sink->download_at_output.empty() ? sink->label : sink->label + "m";
}

}  // namespace

std::string describe_streams(const std::vector<StreamOutcome>& streams,
                             const std::vector<std::string>& paths) {
  std::ostringstream text;
  if (!streams.empty()) text << "streams:\n";
  for (size_t k = 0; k < paths.size(); ++k) {
    text << "  " << paths[k] << ":\n";
    for (const StreamOutcome& stream : streams) {
      if (stream.output != k) continue;
      text << "    #" << stream.input_stream << " " << stream.kind << " " << stream.codec;
      if (!stream.language.empty()) text << " " << stream.language;
      if (!stream.title.empty()) text << " \"" << stream.title << "\"";
      text << ": " << stream.text() << "\n";
    }
  }
  return text.str();
}

std::string describe(const Plan& plan) {
  std::ostringstream text;
  text << "backend: " << name_of(plan.backend) << " (" << plan.backend_reason << ")\n";
  for (const Stage& stage : render_stages(plan))
    text << "  " << stage.name << ": " << stage.component << " [" << stage.device.to_string()
         << "]\n";
  for (size_t k = 0; k < plan.outputs.size(); ++k)
    if (!plan.outputs[k].video_copy)
      text << "out" << k << " video: " << format_line(plan.outputs[k].video) << "\n";
  if (plan.deinterlace.on)
    text << "deinterlace: " << plan.deinterlace.filter << " ["
         << plan.deinterlace.device.to_string()
         << "], one frame out per frame in (frame rate kept), output tagged progressive\n";
  if (!plan.video_graph.empty()) text << "video graph: " << plan.video_graph.text << "\n";
  text << describe_refit(plan);
  for (const Plan::AudioGraph& audio : plan.audio_graphs)
    text << "audio graph (stream #" << audio.input_stream << "): " << audio.graph.text << "\n";
  if (plan.decode.extra_hw_frames)
    text << "decoder extra_hw_frames: " << plan.decode.extra_hw_frames << "\n";
  text << "frames copied between device and memory: "
       << (plan.crossings() ? std::to_string(plan.crossings()) + " transfer(s)" : "none") << "\n";
  text << describe_package(plan);
  text << describe_thumbnails(plan);
  std::vector<std::string> paths;
  for (const OutputPlan& output : plan.outputs) paths.push_back(output.path);
  text << describe_streams(plan.streams, paths);
  return text.str();
}

namespace {

// The CLI's device "hw". QSV is derived from the node's VA-API device, as the job opens it: given
// the node itself (qsv=hw:NODE) the CLI takes it for the MFX implementation, not the device.
void add_device_args(const Plan& plan, const std::string& type, std::vector<std::string>& args) {
  std::string node = plan.device.path.empty() ? "" : ":" + plan.device.path;
  if (plan.device_type == AV_HWDEVICE_TYPE_QSV)
    args.insert(args.end(), {"-init_hw_device", "vaapi=va" + node, "-init_hw_device", "qsv=hw@va"});
  else
    args.insert(args.end(), {"-init_hw_device", type + "=hw" + node});
  args.insert(args.end(), {"-filter_hw_device", "hw"});
}

}  // namespace

std::string ffmpeg_command(const Plan& plan, const JobSpec& spec) {
  std::vector<std::string> args{"ffmpeg", "-hide_banner", "-y"};
  if (plan.device_type != AV_HWDEVICE_TYPE_NONE) {
    std::string type = av_hwdevice_get_type_name(plan.device_type);
    add_device_args(plan, type, args);
    if (plan.decode.hw) {
      args.insert(args.end(),
                  {"-hwaccel", type, "-hwaccel_device", "hw", "-hwaccel_output_format", type});
      if (plan.decode.extra_hw_frames)
        args.insert(args.end(), {"-extra_hw_frames", std::to_string(plan.decode.extra_hw_frames)});
    }
  }
  // The decoder the plan named (the native av1 with its hwaccel, hevc_qsv): the CLI would
  // otherwise take the codec's default (libdav1d, hevc), which has no such device path.
  if (!plan.decode.decoder.empty()) args.insert(args.end(), {"-c:v", plan.decode.decoder});
  if (spec.start_s > 0) args.insert(args.end(), {"-ss", seconds(spec.start_s)});
  if (spec.duration_s > 0) args.insert(args.end(), {"-t", seconds(spec.duration_s)});
  // The graph turns a rotated source upright: the CLI must not turn it again (autorotate).
  if (plan.orientation.on()) args.push_back("-noautorotate");
  args.insert(args.end(), {"-i", spec.input});
  std::string graph = replace_all(plan.video_graph.text, "[in]", "[0:v:0]");
  // Where transcode's outputs download their frames themselves, the CLI's graph does it.
  for (const GraphSink& sink : plan.video_graph.sinks)
    if (!sink.download_at_output.empty())
      graph += ";[" + sink.label + "]" + sink.download_at_output + "[" +
               cli_sink(plan.video_graph, sink.output) + "]";
  if (!graph.empty()) args.insert(args.end(), {"-filter_complex", graph});
  // A graph each: the split's inner labels ([a0], [a1]) repeat from one to the next.
  for (const Plan::AudioGraph& audio : plan.audio_graphs)
    args.insert(args.end(),
                {"-filter_complex", replace_all(audio.graph.text, "[ain]",
                                                "[0:" + std::to_string(audio.input_stream) + "]")});
  for (size_t k = 0; k < plan.outputs.size(); ++k) {
    const OutputPlan& output = plan.outputs[k];
    if (output.video_copy) {
      args.insert(args.end(), {"-map", "0:v:0", "-c:v", "copy"});
    } else {
      args.insert(args.end(), {"-map", "[" + cli_sink(plan.video_graph, k) + "]"});
      add_encoder_args(output, args);
      // Turned upright: no display matrix (the CLI would copy the source's).
      if (plan.orientation.on()) args.insert(args.end(), {"-metadata:s:v:0", "rotate=0"});
    }
    if (output.video_tag == MKTAG('h', 'v', 'c', '1')) args.insert(args.end(), {"-tag:v", "hvc1"});
    add_audio_args(plan, k, args);
    add_subtitle_args(plan, k, args);
    for (const auto& [key, value] : output.mux_options) args.insert(args.end(), {"-" + key, value});
    args.insert(args.end(), {"-f", output.format, output.path});
  }
  add_thumbnail_args(plan, args);
  add_text_rendition_args(plan, args);
  std::string line;
  for (const std::string& arg : args) line += (line.empty() ? "" : " ") + shell_quote(arg);
  return line;
}

}  // namespace tc
