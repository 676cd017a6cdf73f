#include "service/daemon/worker_protocol.h"

#include <nlohmann/json.hpp>

namespace tc::daemon {
namespace {

using nlohmann::json;

Progress progress_from(const json& j) {
  Progress p;
  if (!j.is_object()) return p;
  p.frames_decoded = j.value("frames_decoded", int64_t{0});
  p.frames_encoded = j.value("frames_encoded", int64_t{0});
  p.media_time_s = j.value("media_time_s", 0.0);
  p.media_duration_s = j.value("media_duration_s", 0.0);
  p.elapsed_s = j.value("elapsed_s", 0.0);
  p.fps = j.value("fps", 0.0);
  p.speed = j.value("speed", 0.0);
  return p;
}

// tc::progress_to_json is the pipeline's format; the fields are read by name, so a writer that
// adds fields does not break this reader.
json progress_to(const Progress& progress) {
  json j = json::parse(progress_to_json(progress), nullptr, false);
  return j.is_discarded() ? json::object() : j;
}

}  // namespace

std::string progress_line(const Progress& progress) {
  return json{{"progress", progress_to(progress)}}.dump();
}

std::string result_line(const JobReport& report) {
  json j = json::parse(report_to_json(report), nullptr, false);
  if (j.is_discarded()) j = json::object();
  return json{{"result", j}}.dump();
}

std::string error_line(const Status& status) {
  return json{{"error",
               {{"code", code_key(status.code())},
                {"message", status.message()},
                {"retryable", status.retryable()}}}}
      .dump();
}

Result<WorkerMessage> parse_worker_line(std::string_view line) {
  json j = json::parse(line, nullptr, false);
  WorkerMessage message;
  if (j.is_object() && j.contains("progress")) {
    message.kind = WorkerMessage::Kind::kProgress;
    message.progress = progress_from(j["progress"]);
    return message;
  }
  if (j.is_object() && j.contains("result")) {
    message.kind = WorkerMessage::Kind::kResult;
    message.report_json = j["result"].dump();
    return message;
  }
  if (j.is_object() && j.contains("error") && j["error"].is_object()) {
    const json& e = j["error"];
    Code code = parse_code_key(e.value("code", "internal")).value_or(Code::kInternal);
    if (code == Code::kOk) code = Code::kInternal;
    message.kind = WorkerMessage::Kind::kError;
    message.error = Status(code, e.value("message", ""), e.value("retryable", false));
    return message;
  }
  return Status(Code::kInternal,
                "worker wrote an unknown line: " + std::string(line.substr(0, 200)));
}

std::string progress_json(const Progress& progress) {
  return progress_to(progress).dump();
}

Progress progress_from_json(std::string_view text) {
  return progress_from(json::parse(text, nullptr, false));
}

}  // namespace tc::daemon
