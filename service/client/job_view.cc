#include "service/client/job_view.h"

#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/time_util.h>

#include <cstdio>
#include <map>
#include <sstream>

#include "service/cli/progress_bar.h"
#include "service/client/error_details.h"
#include "service/common/exit_codes.h"

namespace tc::client {
namespace {

using google::protobuf::util::TimeUtil;

std::string code_name(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::CANCELLED:
      return "CANCELLED";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::StatusCode::PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    case grpc::StatusCode::ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case grpc::StatusCode::INTERNAL:
      return "INTERNAL";
    default:
      return "code " + std::to_string(static_cast<int>(code));
  }
}

// A proto enum value's name as a label: its prefix off, lower case ("ERROR_CODE_INPUT": "input").
std::string enum_label(std::string name, const std::string& prefix) {
  if (name.rfind(prefix, 0) == 0) name = name.substr(prefix.size());
  for (char& c : name) c = static_cast<char>(std::tolower(c));
  return name;
}

std::string error_code_name(pb::ErrorCode code) {
  return enum_label(pb::ErrorCode_Name(code), "ERROR_CODE_");
}

std::optional<QualityScore> quality_from_proto(const pb::OutputResult& o) {
  if (!o.has_quality()) return std::nullopt;
  const pb::QualityResult& q = o.quality();
  QualityScore score;
  score.frames = q.frames();
  if (q.has_psnr_y_db()) score.psnr_y_db = q.psnr_y_db();
  if (q.has_psnr_avg_db()) score.psnr_avg_db = q.psnr_avg_db();
  if (q.has_ssim()) score.ssim = q.ssim();
  return score;
}

std::string time_text(const google::protobuf::Timestamp& t) {
  return t.seconds() == 0 && t.nanos() == 0 ? "-" : TimeUtil::ToString(t);
}

std::string outcome_label(pb::AttemptOutcome outcome) {
  return enum_label(pb::AttemptOutcome_Name(outcome), "ATTEMPT_OUTCOME_");
}

// One line per attempt: "attempt  1 crashed   node-a software 2026-...Z to 2026-...Z: why".
std::string attempt_line(const pb::Attempt& a) {
  char head[96];
  std::snprintf(head, sizeof head, "attempt %2d %-11s ", a.number(),
                outcome_label(a.outcome()).c_str());
  std::string line = head + a.node() + " " + a.device() + " " + time_text(a.start_time()) + " to " +
                     time_text(a.end_time());
  if (a.has_error())
    line += ": " + error_code_name(a.error().code()) + ": " + a.error().message() +
            (a.error().retryable() ? " (retryable)" : "");
  return line;
}

// "cpu 12.40 s, video 3.10 s, render 0.20 s": measured use, engine classes by name.
std::string usage_text(const pb::Usage& usage) {
  char part[96];
  std::snprintf(part, sizeof part, "cpu %.2f s", usage.cpu_seconds());
  std::string text = part;
  std::map<std::string, double> engines(usage.engine_seconds().begin(),
                                        usage.engine_seconds().end());
  for (const auto& [engine, seconds] : engines) {
    std::snprintf(part, sizeof part, ", %s %.2f s", engine.c_str(), seconds);
    text += part;
  }
  return text;
}

std::string percent(const pb::Job& job) {
  const pb::Progress& p = job.progress();
  if (job.state() == pb::JOB_STATE_SUCCEEDED) return "100%";
  if (p.input_duration_s() <= 0) return "-";
  int value = static_cast<int>(100 * p.media_time_s() / p.input_duration_s());
  return std::to_string(std::min(std::max(value, 0), 100)) + "%";
}

PackageReport package_from_proto(const pb::PackageResult& p) {
  PackageReport package{p.kind(), p.dir(), p.segment_s(), {}, {}, p.keyframes_aligned()};
  for (const std::string& manifest : p.manifests()) package.manifests.push_back(manifest);
  for (const pb::RenditionResult& r : p.renditions())
    package.renditions.push_back({r.name(), r.type(), r.width(), r.height(), r.codec(),
                                  r.language(), r.peak_bitrate(), r.average_bitrate(), r.segments(),
                                  r.duration_s(), r.keyframes_aligned(), r.cues()});
  return package;
}

ThumbnailReport thumbnails_from_proto(const pb::ThumbnailsResult& t) {
  ThumbnailReport thumbnails{t.index(), {},         t.tiles(),   t.interval_s(),
                             t.width(), t.height(), t.columns(), t.rows()};
  for (const std::string& sheet : t.sheets()) thumbnails.sheets.push_back(sheet);
  return thumbnails;
}

}  // namespace

JobReport report_from_proto(const pb::JobResult& r) {
  JobReport report;
  report.input = r.input();
  report.backend = r.backend();
  report.backend_reason = r.backend_reason();
  for (const pb::Stage& s : r.stages()) {
    Stage stage;
    stage.name = s.name();
    stage.component = s.what();
    // An unknown backend name (a newer daemon's) reads as the CPU.
    Result<BackendKind> backend = parse_backend(s.device_parts().backend());
    stage.device.backend = backend.is_ok() ? *backend : BackendKind::kSoftware;
    stage.device.path = s.device_parts().path();
    stage.device.driver = s.device_parts().driver();
    report.stages.push_back(stage);
  }
  for (const pb::OutputResult& o : r.outputs())
    report.outputs.push_back({o.path(), o.encoder(), o.device(), o.width(), o.height(), o.frames(),
                              o.bytes(), o.duration_s(), o.bitrate(), o.chunks(),
                              quality_from_proto(o)});
  for (const pb::StreamResult& s : r.streams())
    report.streams.push_back({size_t(s.output()), s.input_stream(), s.kind(), s.codec(),
                              s.language(), s.title(), s.kept(), s.action(), s.reason()});
  report.frames_decoded = r.frames_decoded();
  report.media_duration_s = r.media_processed_s();
  report.setup_s = r.setup_s();
  report.wall_s = r.wall_s();
  report.cpu_s = r.cpu_s();
  report.fps = r.fps();
  report.speed = r.speed();
  report.first_frame_s = r.first_frame_s();
  if (r.has_package()) report.package = package_from_proto(r.package());
  if (r.has_thumbnails()) report.thumbnails = thumbnails_from_proto(r.thumbnails());
  for (const pb::SourceChange& c : r.source_changes())
    report.source_changes.push_back({c.time_s(), c.before(), c.after()});
  for (const pb::ThreadTime& t : r.threads())
    report.threads.push_back({t.name(), t.busy_s(), t.blocked_s()});
  return report;
}

Progress progress_from_proto(const pb::Progress& p) {
  Progress progress;
  progress.frames_decoded = p.frames_decoded();
  progress.frames_encoded = p.frames_encoded();
  progress.media_time_s = p.media_time_s();
  progress.input_duration_s = p.input_duration_s();
  progress.elapsed_s = p.elapsed_s();
  progress.fps = p.fps();
  progress.speed = p.speed();
  return progress;
}

metrics::EngineUsage engines_from_proto(const pb::EngineUsage& e) {
  metrics::EngineUsage usage;
  usage.source = e.source();
  usage.driver = e.driver();
  usage.available = e.available();
  usage.unavailable_reason = e.unavailable_reason();
  for (const pb::EngineBusy& b : e.engines())
    usage.engines.push_back({b.engine(), b.label(), b.busy_percent(), b.capacity()});
  usage.memory_total_peak_bytes = e.memory_total_peak_bytes();
  usage.memory_resident_peak_bytes = e.memory_resident_peak_bytes();
  usage.cpu_cores = e.cpu_cores();
  usage.interval_s = e.interval_s();
  usage.samples = e.samples();
  return usage;
}

std::string result_text(const pb::JobResult& result) {
  std::string text = cli::format_report(report_from_proto(result));
  if (result.has_engines())
    text += "engines: " + metrics::format_engine_usage(engines_from_proto(result.engines())) + "\n";
  return text;
}

std::string state_label(pb::JobState state) {
  switch (state) {
    case pb::JOB_STATE_QUEUED:
      return "queued";
    case pb::JOB_STATE_RUNNING:
      return "running";
    case pb::JOB_STATE_SUCCEEDED:
      return "succeeded";
    case pb::JOB_STATE_FAILED:
      return "failed";
    case pb::JOB_STATE_CANCELLED:
      return "cancelled";
    default:
      return "unknown";
  }
}

bool is_terminal(pb::JobState state) {
  return state == pb::JOB_STATE_SUCCEEDED || state == pb::JOB_STATE_FAILED ||
         state == pb::JOB_STATE_CANCELLED;
}

std::string job_line(const pb::Job& job) {
  char line[512];
  std::snprintf(line, sizeof line, "%-20s %-10s %4d %7d %5s  %s", job.id().c_str(),
                state_label(job.state()).c_str(), job.priority(), job.attempt(),
                percent(job).c_str(), job.config().input().c_str());
  // Why it does not run yet, on a line of its own below: the columns stay as they are.
  if (!job.waiting_reason().empty())
    return line + ("\n" + std::string(21, ' ') + "waiting: ") + job.waiting_reason();
  return line;
}

std::string job_details(const pb::Job& job) {
  std::ostringstream out;
  out << "job      " << job.id() << "\n"
      << "state    " << state_label(job.state()) << " (attempt " << job.attempt() << ")\n"
      << "input    " << job.config().input() << "\n";
  for (const pb::OutputConfig& o : job.config().outputs()) out << "output   " << o.path() << "\n";
  out << "created  " << time_text(job.create_time()) << "\n"
      << "started  " << time_text(job.start_time()) << "\n"
      << "ended    " << time_text(job.end_time()) << "\n";
  if (!job.device().empty()) out << "device   " << job.device() << "\n";
  if (job.state() == pb::JOB_STATE_RUNNING) {
    const pb::Progress& p = job.progress();
    char line[160];
    std::snprintf(line, sizeof line, "%s, %lld frames, %.1f fps, %.2fx", percent(job).c_str(),
                  static_cast<long long>(p.frames_decoded()), p.fps(), p.speed());
    out << "progress " << line << "\n";
    if (p.has_engines())
      out << "engines  " << metrics::format_engine_usage(engines_from_proto(p.engines())) << "\n";
  }
  if (job.has_error())
    out << "error    " << error_code_name(job.error().code()) << ": " << job.error().message()
        << (job.error().retryable() ? " (retryable)" : "") << "\n";
  if (!job.waiting_reason().empty()) out << "waiting  " << job.waiting_reason() << "\n";
  if (job.has_not_before_time())
    out << "retry    not before " << time_text(job.not_before_time()) << "\n";
  for (const pb::Attempt& a : job.attempts()) out << attempt_line(a) << "\n";
  if (job.has_usage()) out << "usage    " << usage_text(job.usage()) << "\n";
  if (job.state() == pb::JOB_STATE_SUCCEEDED && job.has_result()) out << result_text(job.result());
  return out.str();
}

std::string to_json(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.add_whitespace = true;
  std::string json;
  (void)google::protobuf::util::MessageToJsonString(message, &json, options);
  return json;
}

std::string to_json_line(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  std::string json;
  (void)google::protobuf::util::MessageToJsonString(message, &json, options);
  return json + "\n";
}

int exit_code_for_job(const pb::Job& job) {
  switch (job.state()) {
    case pb::JOB_STATE_SUCCEEDED:
      return kExitOk;
    case pb::JOB_STATE_CANCELLED:
      return kExitCancelled;
    case pb::JOB_STATE_FAILED:
      break;
    default:
      return kExitFailed;
  }
  switch (job.error().code()) {
    case pb::ERROR_CODE_INVALID_ARGUMENT:
      return kExitUsage;
    case pb::ERROR_CODE_INPUT:
      return kExitInput;
    case pb::ERROR_CODE_UNSUPPORTED:
      return kExitUnsupported;
    case pb::ERROR_CODE_DEVICE:
      return kExitDevice;
    case pb::ERROR_CODE_OUTPUT:
      return kExitOutput;
    case pb::ERROR_CODE_CANCELLED:
      return kExitCancelled;
    default:
      return kExitFailed;  // a crash, a stall, an internal error
  }
}

int rpc_failure(const grpc::Status& status) {
  std::fprintf(stderr, "transcode: %s: %s\n", code_name(status.error_code()).c_str(),
               status.error_message().c_str());
  if (std::optional<pb::ErrorDetail> detail = error_detail(status))
    std::fprintf(stderr, "transcode: %s\n", describe(*detail).c_str());
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return kExitUnavailable;
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::PERMISSION_DENIED:
    case grpc::StatusCode::NOT_FOUND:
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::UNAUTHENTICATED:
    case grpc::StatusCode::ALREADY_EXISTS:
      return kExitUsage;
    case grpc::StatusCode::RESOURCE_EXHAUSTED:  // a quota or the queue bound: retry later
      return kExitLimit;
    default:
      return kExitInternal;
  }
}

}  // namespace tc::client
