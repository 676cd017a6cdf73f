// Reports as JSON. Each struct lists its fields once, with their keys, in a field table; the
// writer and the reader both walk that table, so the two directions cannot drift apart.
#include "pipeline/exec/report.h"

#include <concepts>
#include <cstdio>
#include <type_traits>

namespace tc {
namespace {

using nlohmann::json;

// `Self` is T or const T: one table serves the writer (const) and the reader.
template <typename Self, typename T>
concept Is = std::same_as<std::remove_const_t<Self>, T>;

template <Is<Progress> Self, typename Visit>
void fields(Self& p, Visit&& visit) {
  visit("frames_decoded", p.frames_decoded);
  visit("frames_encoded", p.frames_encoded);
  visit("media_time_s", p.media_time_s);
  visit("input_duration_s", p.input_duration_s);
  visit("media_duration_s", p.input_duration_s);  // deprecated: the same, for older readers
  visit("elapsed_s", p.elapsed_s);
  visit("fps", p.fps);
  visit("speed", p.speed);
}

template <Is<QualityScore> Self, typename Visit>
void fields(Self& q, Visit&& visit) {
  visit("frames", q.frames);
  visit("psnr_y_db", q.psnr_y_db);
  visit("psnr_avg_db", q.psnr_avg_db);
  visit("ssim", q.ssim);
}

template <Is<OutputReport> Self, typename Visit>
void fields(Self& o, Visit&& visit) {
  visit("path", o.path);
  visit("encoder", o.encoder);
  visit("device", o.device);
  visit("width", o.width);
  visit("height", o.height);
  visit("frames", o.frames);
  visit("bytes", o.bytes);
  visit("duration_s", o.duration_s);
  visit("bitrate", o.bitrate);
  visit("chunks", o.chunks);
  visit("quality", o.quality);
}

template <Is<Stage> Self, typename Visit>
void fields(Self& s, Visit&& visit) {
  visit("name", s.name);
  visit("what", s.component);
  visit("device_backend", s.device.backend);
  visit("device_path", s.device.path);
  visit("device_driver", s.device.driver);
}

template <Is<StreamOutcome> Self, typename Visit>
void fields(Self& s, Visit&& visit) {
  visit("output", s.output);
  visit("input_stream", s.input_stream);
  visit("kind", s.kind);
  visit("codec", s.codec);
  visit("language", s.language);
  visit("title", s.title);
  visit("kept", s.kept);
  visit("action", s.action);
  visit("reason", s.reason);
}

template <Is<JobReport> Self, typename Visit>
void fields(Self& r, Visit&& visit) {
  visit("input", r.input);
  visit("backend", r.backend);
  visit("backend_reason", r.backend_reason);
  visit("frames_decoded", r.frames_decoded);
  visit("media_processed_s", r.media_duration_s);
  visit("media_duration_s", r.media_duration_s);  // deprecated: the same, for older readers
  visit("setup_s", r.setup_s);
  visit("wall_s", r.wall_s);
  visit("cpu_s", r.cpu_s);
  visit("fps", r.fps);
  visit("speed", r.speed);
  visit("first_frame_s", r.first_frame_s);
  visit("stages", r.stages);
  visit("outputs", r.outputs);
  visit("streams", r.streams);
  visit("engines", r.engines);
  visit("package", r.package);
  visit("thumbnails", r.thumbnails);
  visit("source_changes", r.source_changes);
  visit("threads", r.threads);
}

template <Is<SourceChangeReport> Self, typename Visit>
void fields(Self& c, Visit&& visit) {
  visit("time_s", c.time_s);
  visit("from", c.from);
  visit("to", c.to);
}

template <Is<ThreadReport> Self, typename Visit>
void fields(Self& t, Visit&& visit) {
  visit("name", t.name);
  visit("busy_s", t.busy_s);
  visit("blocked_s", t.blocked_s);
}

template <Is<RenditionReport> Self, typename Visit>
void fields(Self& r, Visit&& visit) {
  visit("name", r.name);
  visit("type", r.type);
  visit("width", r.width);
  visit("height", r.height);
  visit("codec", r.codec);
  visit("language", r.language);
  visit("peak_bitrate", r.peak_bitrate);
  visit("average_bitrate", r.average_bitrate);
  visit("segments", r.segments);
  visit("duration_s", r.duration_s);
  visit("keyframes_aligned", r.keyframes_aligned);
  visit("cues", r.cues);
}

template <Is<PackageReport> Self, typename Visit>
void fields(Self& p, Visit&& visit) {
  visit("kind", p.kind);
  visit("dir", p.dir);
  visit("segment_s", p.segment_s);
  visit("manifests", p.manifests);
  visit("renditions", p.renditions);
  visit("keyframes_aligned", p.keyframes_aligned);
}

template <Is<ThumbnailReport> Self, typename Visit>
void fields(Self& t, Visit&& visit) {
  visit("index", t.index);
  visit("sheets", t.sheets);
  visit("tiles", t.tiles);
  visit("interval_s", t.interval_s);
  visit("width", t.width);
  visit("height", t.height);
  visit("columns", t.columns);
  visit("rows", t.rows);
}

// ---- writing

template <typename T>
void write_value(json& out, const T& value) {
  if constexpr (std::is_same_v<T, BackendKind>)
    out = name_of(value);
  else if constexpr (std::is_same_v<T, metrics::EngineUsage>)
    out = metrics::engine_usage_to_json(value);
  else
    out = value;  // numbers, strings, vectors of reports (their to_json)
}

template <typename T>
json write_fields(const T& value) {
  json out = json::object();
  fields(value, [&out](const char* key, const auto& field) {
    if constexpr (requires { field.has_value(); }) {
      if (field) write_value(out[key], *field);  // absent stays absent
    } else {
      write_value(out[key], field);
    }
  });
  return out;
}

// ---- reading

Status wrong_type(const std::string& where, const json& value, const char* wanted) {
  return {Code::kInvalidArgument,
          where + ": " + std::string(value.type_name()) + " where " + wanted + " belongs"};
}

template <typename T>
Status read_fields(const json& in, T& value, const std::string& where);

template <typename T>
Status read_value(const json& in, T& out, const std::string& where) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!in.is_boolean()) return wrong_type(where, in, "a boolean");
    out = in.get<bool>();
  } else if constexpr (std::is_integral_v<T>) {
    if (!in.is_number_integer()) return wrong_type(where, in, "an integer");
    out = in.get<T>();
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!in.is_number()) return wrong_type(where, in, "a number");
    out = in.get<T>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!in.is_string()) return wrong_type(where, in, "a string");
    out = in.get<std::string>();
  } else if constexpr (std::is_same_v<T, BackendKind>) {
    std::string name;
    TC_RETURN_IF_ERROR(read_value(in, name, where));
    Result<BackendKind> backend = parse_backend(name);
    if (!backend.is_ok())
      return {Code::kInvalidArgument, where + ": " + backend.status().message()};
    out = *backend;
  } else if constexpr (std::is_same_v<T, std::optional<metrics::EngineUsage>>) {
    if (!in.is_object()) return wrong_type(where, in, "an object");
    try {
      out = metrics::engine_usage_from_json(in);
    } catch (const json::exception& e) {
      return {Code::kInvalidArgument, where + ": " + e.what()};
    }
  } else if constexpr (std::is_same_v<T, std::optional<PackageReport>>) {
    PackageReport package;
    TC_RETURN_IF_ERROR(read_fields(in, package, where));
    out = std::move(package);
  } else if constexpr (requires { out.emplace(); }) {  // any other optional: present
    TC_RETURN_IF_ERROR(read_value(in, out.emplace(), where));
  } else if constexpr (requires { out.push_back(typename T::value_type{}); }) {
    if (!in.is_array()) return wrong_type(where, in, "an array");
    out.clear();
    for (size_t i = 0; i < in.size(); ++i) {
      typename T::value_type element;
      TC_RETURN_IF_ERROR(read_value(in[i], element, where + "[" + std::to_string(i) + "]"));
      out.push_back(std::move(element));
    }
  } else {
    return read_fields(in, out, where);
  }
  return Status::ok();
}

template <typename T>
Status read_fields(const json& in, T& value, const std::string& where) {
  if (!in.is_object()) return wrong_type(where.empty() ? "report" : where, in, "an object");
  Status status;
  fields(value, [&](const char* key, auto& field) {
    auto it = in.find(key);
    if (!status.is_ok() || it == in.end() || it->is_null()) return;
    status = read_value(*it, field, where.empty() ? key : where + "." + key);
  });
  return status;
}

}  // namespace

void to_json(json& j, const Progress& progress) {
  j = write_fields(progress);
}
void to_json(json& j, const QualityScore& quality) {
  j = write_fields(quality);
}
void to_json(json& j, const OutputReport& output) {
  j = write_fields(output);
}
void to_json(json& j, const Stage& stage) {
  j = write_fields(stage);
  j["device"] = stage.device.to_string();  // for people and scripts; derived, never read back
}
void to_json(json& j, const StreamOutcome& stream) {
  j = write_fields(stream);
  j["outcome"] = stream.text();  // for people and scripts; derived, never read back
}
void to_json(json& j, const JobReport& report) {
  j = write_fields(report);
}
void to_json(json& j, const RenditionReport& rendition) {
  j = write_fields(rendition);
}
void to_json(json& j, const PackageReport& package) {
  j = write_fields(package);
}
void to_json(json& j, const ThumbnailReport& thumbnails) {
  j = write_fields(thumbnails);
}
void to_json(json& j, const SourceChangeReport& change) {
  j = write_fields(change);
}
void to_json(json& j, const ThreadReport& thread) {
  j = write_fields(thread);
}

Status from_json(const json& j, Progress& progress) {
  return read_fields(j, progress, "");
}
Status from_json(const json& j, QualityScore& quality) {
  return read_fields(j, quality, "");
}
Status from_json(const json& j, OutputReport& output) {
  return read_fields(j, output, "");
}
Status from_json(const json& j, Stage& stage) {
  return read_fields(j, stage, "");
}
Status from_json(const json& j, StreamOutcome& stream) {
  return read_fields(j, stream, "");
}
Status from_json(const json& j, JobReport& report) {
  return read_fields(j, report, "");
}
Status from_json(const json& j, RenditionReport& rendition) {
  return read_fields(j, rendition, "");
}
Status from_json(const json& j, PackageReport& package) {
  return read_fields(j, package, "");
}
Status from_json(const json& j, ThumbnailReport& thumbnails) {
  return read_fields(j, thumbnails, "");
}
Status from_json(const json& j, SourceChangeReport& change) {
  return read_fields(j, change, "");
}
Status from_json(const json& j, ThreadReport& thread) {
  return read_fields(j, thread, "");
}

std::string quality_text(const QualityScore& quality) {
  std::string text;
  char part[96];
  if (quality.psnr_avg_db && quality.psnr_y_db) {
    std::snprintf(part, sizeof part, "PSNR %.2f dB (y %.2f), ", *quality.psnr_avg_db,
                  *quality.psnr_y_db);
    text += part;
  }
  if (quality.ssim) {
    std::snprintf(part, sizeof part, "SSIM %.4f, ", *quality.ssim);
    text += part;
  }
  return text + std::to_string(quality.frames) + " frames compared";
}

std::string report_to_json(const JobReport& report, int indent) {
  return json(report).dump(indent);
}

}  // namespace tc
