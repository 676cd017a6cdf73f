#include "service/daemon/worker/worker_protocol.h"

#include <nlohmann/json.hpp>

namespace tc::daemon {
namespace {

using nlohmann::json;

Status bad_line(std::string_view line, const std::string& why) {
  return {Code::kInternal,
          "worker wrote a bad line (" + why + "): " + std::string(line.substr(0, 200))};
}

// The worker's error, into `error`; what is wrong with the line otherwise.
Status error_from(const json& e, Status& error) {
  if (!e.is_object() || !e.contains("code") || !e["code"].is_string())
    return {Code::kInternal, "error.code: missing"};
  std::string key = e["code"].get<std::string>();
  std::optional<Code> code = parse_code_key(key);
  if (!code || *code == Code::kOk) return {Code::kInternal, "error.code: '" + key + "' unknown"};
  auto message = e.find("message");
  auto retryable = e.find("retryable");
  error =
      Status(*code, message != e.end() && message->is_string() ? message->get<std::string>() : "",
             retryable != e.end() && retryable->is_boolean() && retryable->get<bool>());
  return Status::ok();
}

json error_json(const Status& error) {
  return {{"code", code_key(error.code())},
          {"message", error.message()},
          {"retryable", error.retryable()}};
}

Status log_from(const json& j, JobLogLine& line) {
  if (!j.is_object() || !j.contains("level") || !j["level"].is_string() || !j.contains("text") ||
      !j["text"].is_string() || !j.contains("time_ms") || !j["time_ms"].is_number_integer())
    return {Code::kInternal, "log: not {level, text, time_ms}"};
  std::optional<LogLevel> level = parse_level(j["level"].get<std::string>());
  if (!level) return {Code::kInternal, "log.level: unknown"};
  line.level = *level;
  line.time_ms = j["time_ms"].get<int64_t>();
  line.text = log_text(j["text"].get<std::string>());
  return Status::ok();
}

json placement_json(const Placement& placement) {
  return {{"backend", std::string(name_of(placement.backend))},
          {"device", placement.device_path},
          {"reason", placement.reason}};
}

Result<Placement> placement_from(const json& j) {
  auto text = [&](const char* key) -> Result<std::string> {
    if (!j.contains(key) || !j[key].is_string())
      return Status(Code::kInvalidArgument, std::string("placement.") + key + ": not text");
    return j[key].get<std::string>();
  };
  if (!j.is_object()) return Status(Code::kInvalidArgument, "placement: not an object");
  TC_ASSIGN_OR_RETURN(std::string backend, text("backend"));
  Placement placement;
  TC_ASSIGN_OR_RETURN(placement.backend, parse_backend(backend));
  TC_ASSIGN_OR_RETURN(placement.device_path, text("device"));
  TC_ASSIGN_OR_RETURN(placement.reason, text("reason"));
  return placement;
}

Result<std::optional<Placement>> optional_placement(const json& job) {
  auto placement = job.find("placement");
  if (placement == job.end()) return std::optional<Placement>();
  TC_ASSIGN_OR_RETURN(Placement read, placement_from(*placement));
  return std::optional<Placement>(std::move(read));
}

}  // namespace

std::string worker_line(const Progress& progress) {
  return json{{"progress", progress}}.dump();
}

std::string worker_line(const JobReport& report) {
  return json{{"result", report}}.dump();
}

std::string worker_line(const Status& error) {
  return json{{"error", error_json(error)}}.dump();
}

std::string worker_line(const JobLogLine& line) {
  return json{{"log",
               {{"level", level_name(line.level)},
                {"text", log_text(line.text)},
                {"time_ms", line.time_ms}}}}
      .dump();
}

std::string publish_request_line() {
  return json{{"publish", json::object()}}.dump();
}

std::string ready_line() {
  return json{{"ready", json::object()}}.dump();
}

std::string job_line(const WorkerJob& job) {
  json body{{"attempt", job.attempt}, {"id", job.id}, {"spec", job_spec_json_value(job.spec)}};
  if (job.placement) body["placement"] = placement_json(*job.placement);
  return json{{"job", body}}.dump();
}

Result<WorkerJob> parse_job_line(std::string_view line) {
  json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  auto bad = [&](const std::string& why) {
    return Status(Code::kInvalidArgument,
                  "the job line does not read (" + why + "): " + std::string(line.substr(0, 200)));
  };
  if (!j.is_object() || j.size() != 1 || !j.contains("job") || !j["job"].is_object())
    return bad("not {\"job\": {...}}");
  const json& job = j["job"];
  auto attempt = job.find("attempt");
  if (attempt == job.end() || !attempt->is_number_integer() || attempt->get<int>() < 0)
    return bad("attempt: not a count");
  auto id = job.find("id");
  if (id != job.end() && !id->is_string()) return bad("id: not text");
  auto spec = job.find("spec");
  if (spec == job.end()) return bad("spec: missing");
  TC_ASSIGN_OR_RETURN(JobSpec parsed, job_spec_from_json_value(*spec));
  Result<std::optional<Placement>> placement = optional_placement(job);
  if (!placement.is_ok()) return bad(placement.status().message());
  return WorkerJob{std::move(parsed), attempt->get<int>(),
                   id == job.end() ? std::string() : id->get<std::string>(), std::move(*placement)};
}

Result<WorkerMessage> parse_worker_line(std::string_view line) {
  json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || j.size() != 1) return bad_line(line, "not a one-key JSON object");
  WorkerMessage message;
  Status read;
  if (j.contains("ready")) {
    message.kind = WorkerMessage::Kind::kReady;
    if (!j["ready"].is_object() || !j["ready"].empty())
      read = {Code::kInternal, "ready: not an empty object"};
  } else if (j.contains("progress")) {
    message.kind = WorkerMessage::Kind::kProgress;
    read = from_json(j["progress"], message.progress);
  } else if (j.contains("publish")) {
    message.kind = WorkerMessage::Kind::kPublish;
    if (!j["publish"].is_object() || !j["publish"].empty())
      read = {Code::kInternal, "publish: not an empty object"};
  } else if (j.contains("result")) {
    message.kind = WorkerMessage::Kind::kResult;
    read = from_json(j["result"], message.report);
  } else if (j.contains("error")) {
    message.kind = WorkerMessage::Kind::kError;
    read = error_from(j["error"], message.error);
  } else if (j.contains("log")) {
    message.kind = WorkerMessage::Kind::kLog;
    read = log_from(j["log"], message.log);
  } else {
    return bad_line(line, "unknown key");
  }
  if (!read.is_ok()) return bad_line(line, read.message());
  return message;
}

std::string publish_answer_line(const Status& answer) {
  json publish = {{"allowed", answer.is_ok()}};
  if (!answer.is_ok()) publish["error"] = error_json(answer);
  return json{{"publish", publish}}.dump();
}

Status parse_publish_answer(std::string_view line) {
  auto bad_answer = [&](const std::string& why) {
    return Status(Code::kInternal, "the daemon's answer to publishing does not read (" + why +
                                       "): " + std::string(line.substr(0, 200)));
  };
  json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || j.size() != 1 || !j.contains("publish") || !j["publish"].is_object())
    return bad_answer("not {\"publish\": {...}}");
  const json& publish = j["publish"];
  auto allowed = publish.find("allowed");
  if (allowed == publish.end() || !allowed->is_boolean()) return bad_answer("allowed: missing");
  if (allowed->get<bool>()) return Status::ok();
  Status refusal;
  if (Status read = error_from(publish.value("error", json()), refusal); !read.is_ok())
    return bad_answer(read.message());
  return refusal;
}

Status read_publish_answer(std::istream& in) {
  std::string answer;
  if (!std::getline(in, answer))
    return {Code::kInternal, "no answer from the daemon to publishing the outputs (it stopped)",
            true};
  return parse_publish_answer(answer);
}

}  // namespace tc::daemon
