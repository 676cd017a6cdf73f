// Plans as text: for people (--dry-run, logs) and as the equivalent ffmpeg command line.
#include <sstream>

extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/pixdesc.h>
}

#include "pipeline/plan/plan.h"

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
}

std::string color_name(const ColorTags& color) {
  auto name = [](const char* text) { return std::string(text ? text : "?"); };
  return name(av_color_primaries_name(color.primaries)) + "/" +
         name(av_color_transfer_name(color.transfer)) + "/" +
         name(av_color_space_name(color.matrix)) + "/" + name(av_color_range_name(color.range));
}

// "yuv420p10le (10-bit 4:2:0, Main 10), bt2020/smpte2084/bt2020nc/tv, HDR metadata carried"
std::string format_line(const VideoEncodePlan& video) {
  const VideoFormatPlan& format = video.format;
  std::string line =
      std::string(av_get_pix_fmt_name(video.pix_fmt)) + " (" + std::to_string(format.bit_depth) +
      "-bit " + std::string(name_of(format.chroma)) +
      (format.profile.empty() ? "" : ", " + format.profile) + "), " + color_name(format.color);
  if (format.hdr_metadata) line += ", HDR metadata carried";
  if (format.to_sdr) line += ", converted to SDR BT.709 by " + format.to_sdr_where;
  if (video.progressive) line += ", progressive";
  return line;
}

}  // namespace

std::string describe(const Plan& plan) {
  std::ostringstream text;
  text << "backend: " << name_of(plan.backend) << " (" << plan.backend_reason << ")\n";
  for (const Stage& stage : plan.stages)
    text << "  " << stage.name << ": " << stage.what << " [" << stage.device.to_string() << "]\n";
  for (size_t k = 0; k < plan.outputs.size(); ++k)
    if (!plan.outputs[k].video_copy)
      text << "out" << k << " video: " << format_line(plan.outputs[k].video) << "\n";
  if (plan.deinterlace.on)
    text << "deinterlace: " << plan.deinterlace.filter << " ["
         << plan.deinterlace.device.to_string()
         << "], one frame out per frame in (frame rate kept), output tagged progressive\n";
  if (!plan.video_graph.empty()) text << "video graph: " << plan.video_graph.text << "\n";
  if (!plan.audio_graph.empty()) text << "audio graph: " << plan.audio_graph.text << "\n";
  if (plan.decode.extra_hw_frames)
    text << "decoder extra_hw_frames: " << plan.decode.extra_hw_frames << "\n";
  text << "frames copied between device and memory: "
       << (plan.crossings() ? std::to_string(plan.crossings()) + " transfer filter(s)" : "none")
       << "\n";
  return text.str();
}

std::string ffmpeg_command(const Plan& plan, const JobSpec& spec) {
  std::vector<std::string> args{"ffmpeg", "-hide_banner", "-y"};
  if (plan.device_type != AV_HWDEVICE_TYPE_NONE) {
    std::string type = av_hwdevice_get_type_name(plan.device_type);
    args.insert(
        args.end(),
        {"-init_hw_device", type + "=hw" + (plan.device.path.empty() ? "" : ":" + plan.device.path),
         "-filter_hw_device", "hw"});
    if (plan.decode.hw) {
      args.insert(args.end(),
                  {"-hwaccel", type, "-hwaccel_device", "hw", "-hwaccel_output_format", type});
      if (plan.decode.extra_hw_frames)
        args.insert(args.end(), {"-extra_hw_frames", std::to_string(plan.decode.extra_hw_frames)});
    }
  }
  if (spec.start_s > 0) args.insert(args.end(), {"-ss", seconds(spec.start_s)});
  if (spec.duration_s > 0) args.insert(args.end(), {"-t", seconds(spec.duration_s)});
  args.insert(args.end(), {"-i", spec.input});
  std::string graph = replace_all(plan.video_graph.text, "[in]", "[0:v:0]");
  if (!plan.audio_graph.empty())
    graph += (graph.empty() ? "" : ";") + replace_all(plan.audio_graph.text, "[ain]", "[0:a:0]");
  if (!graph.empty()) args.insert(args.end(), {"-filter_complex", graph});
  for (size_t k = 0; k < plan.outputs.size(); ++k) {
    const OutputPlan& output = plan.outputs[k];
    if (output.video_copy) {
      args.insert(args.end(), {"-map", "0:v:0", "-c:v", "copy"});
    } else {
      args.insert(args.end(), {"-map", "[" + plan.video_graph.sink_label(k) + "]"});
      add_encoder_args(output, args);
    }
    if (output.audio.mode == AudioPlan::Mode::kCopy)
      args.insert(args.end(), {"-map", "0:a:0", "-c:a", "copy"});
    if (output.audio.mode == AudioPlan::Mode::kEncode)
      args.insert(args.end(),
                  {"-map", "[" + plan.audio_graph.sink_label(k) + "]", "-c:a", output.audio.encoder,
                   "-b:a", std::to_string(output.audio.bit_rate)});
    for (const auto& [key, value] : output.mux_options) args.insert(args.end(), {"-" + key, value});
    args.insert(args.end(), {"-f", output.format, output.path});
  }
  std::string line;
  for (const std::string& arg : args) line += (line.empty() ? "" : " ") + shell_quote(arg);
  return line;
}

}  // namespace tc
