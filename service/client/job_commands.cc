// `transcode watch|get|jobs|cancel|caps|health`: thin calls, printed for people or as JSON.
#include <grpcpp/generic/generic_stub.h>

#include <cstdio>
#include <future>
#include <iostream>

#include <nlohmann/json.hpp>

#include "pipeline/hw/intel_profiles.h"
#include "service/cli/progress_bar.h"
#include "service/client/commands.h"
#include "service/client/job_view.h"
#include "service/common/exit_codes.h"
#include "transcode/v1/transcoder.grpc.pb.h"

namespace tc::client {
namespace {

int usage(const std::string& message) {
  std::fprintf(stderr, "transcode: %s (see transcode --help)\n", message.c_str());
  return kExitUsage;
}

std::unique_ptr<pb::Transcoder::Stub> stub_for(const Connection& connection) {
  return pb::Transcoder::NewStub(make_channel(connection));
}

void announce_state(const pb::Job& job) {
  std::string where = job.device().empty() ? "" : " on " + job.device();
  std::fprintf(stderr, "job %s: %s%s\n", job.id().c_str(), state_label(job.state()).c_str(),
               job.state() == pb::JOB_STATE_RUNNING ? where.c_str() : "");
}

int print_outcome(const pb::Job& job, bool json) {
  if (json) {
    std::cout << to_json(job);
  } else if (job.state() == pb::JOB_STATE_SUCCEEDED) {
    std::cout << result_text(job.result());
  } else {
    std::fprintf(stderr, "transcode: job %s %s: %s\n", job.id().c_str(),
                 state_label(job.state()).c_str(), job.error().message().c_str());
  }
  return exit_code_for_job(job);
}

}  // namespace

// Engine use for the progress line: the figures when there are some; otherwise the CPU cores
// alone (the reason figures are missing is in the final report, too long for one line).
std::string live_engines(const pb::Progress& progress) {
  if (!progress.has_engines()) return "";
  metrics::EngineUsage usage = engines_from_proto(progress.engines());
  if (usage.available) return metrics::format_engine_usage(usage);
  char cores[32] = "";
  if (usage.cpu_cores > 0) std::snprintf(cores, sizeof cores, "cpu %.1f cores", usage.cpu_cores);
  return cores;
}

// A JSON progress line of a job's event: its state, and the daemon's percent and ETA.
std::string event_line(const pb::Job& job) {
  const pb::Progress& p = job.progress();
  return cli::progress_json_line(state_label(job.state()), progress_from_proto(p),
                                 p.has_percent() ? std::optional(p.percent()) : std::nullopt,
                                 p.has_eta_s() ? std::optional(p.eta_s()) : std::nullopt);
}

int watch_job(const Connection& connection, const std::string& id, bool quiet, bool json,
              cli::ProgressMode mode) {
  auto stub = stub_for(connection);
  grpc::ClientContext context;
  prepare_context(context, connection, std::chrono::seconds(0));
  pb::WatchJobRequest request;
  request.set_id(id);
  std::unique_ptr<grpc::ClientReader<pb::JobEvent>> reader = stub->WatchJob(&context, request);
  bool lines = mode == cli::ProgressMode::kJson;
  bool talk = !quiet && !json && !lines;
  cli::ProgressBar bar(talk);
  pb::JobEvent event;
  pb::Job last;
  pb::JobState shown = pb::JOB_STATE_UNSPECIFIED;
  while (reader->Read(&event)) {
    last = event.job();
    if (lines) std::cout << event_line(last) << std::flush;
    if (last.state() != shown && talk && !is_terminal(last.state())) announce_state(last);
    shown = last.state();
    if (last.state() == pb::JOB_STATE_RUNNING && last.progress().elapsed_s() > 0)
      bar.update(progress_from_proto(last.progress()), live_engines(last.progress()));
  }
  bar.finish();
  grpc::Status status = reader->Finish();
  if (!status.ok()) return rpc_failure(status);
  if (!is_terminal(last.state())) {
    std::fprintf(stderr, "transcode: the watch of job %s ended before the job did\n", id.c_str());
    return kExitUnavailable;
  }
  if (lines) {
    std::cout << to_json_line(last);
    return exit_code_for_job(last);
  }
  return print_outcome(last, json);
}

int watch_command(const JobIdArgs& args, const Connection& connection) {
  Result<cli::ProgressMode> mode = cli::parse_progress_mode(args.progress);
  if (!mode.is_ok()) return usage(mode.status().message());
  return watch_job(connection, args.id, args.quiet, args.json, *mode);
}

int get_command(const JobIdArgs& args, const Connection& connection) {
  grpc::ClientContext context;
  prepare_context(context, connection);
  pb::GetJobRequest request;
  request.set_id(args.id);
  pb::Job job;
  grpc::Status status = stub_for(connection)->GetJob(&context, request, &job);
  if (!status.ok()) return rpc_failure(status);
  std::cout << (args.json ? to_json(job) : job_details(job));
  return kExitOk;
}

int jobs_command(const JobsArgs& args, const Connection& connection) {
  pb::ListJobsRequest request;
  if (!args.state.empty()) {
    pb::JobState state;
    std::string name = "JOB_STATE_" + args.state;
    for (char& c : name) c = static_cast<char>(std::toupper(c));
    if (!pb::JobState_Parse(name, &state))
      return usage("jobs: --state: queued, running, succeeded, failed or cancelled");
    request.set_state(state);
  }
  request.set_page_size(args.limit);
  request.set_page_token(args.page_token);
  grpc::ClientContext context;
  prepare_context(context, connection);
  pb::ListJobsResponse response;
  grpc::Status status = stub_for(connection)->ListJobs(&context, request, &response);
  if (!status.ok()) return rpc_failure(status);
  if (args.json) {
    std::cout << to_json(response);
    return kExitOk;
  }
  std::printf("%-20s %-10s %4s %7s %5s  %s\n", "ID", "STATE", "PRIO", "ATTEMPT", "DONE", "INPUT");
  for (const pb::Job& job : response.jobs()) std::printf("%s\n", job_line(job).c_str());
  if (!response.next_page_token().empty())
    std::fprintf(stderr, "more: transcode jobs --page-token %s\n",
                 response.next_page_token().c_str());
  return kExitOk;
}

int cancel_command(const JobIdArgs& args, const Connection& connection) {
  grpc::ClientContext context;
  prepare_context(context, connection);
  pb::CancelJobRequest request;
  request.set_id(args.id);
  pb::Job job;
  grpc::Status status = stub_for(connection)->CancelJob(&context, request, &job);
  if (!status.ok()) return rpc_failure(status);
  if (!args.wait) {
    if (args.json)
      std::cout << to_json(job);
    else
      std::printf("job %s: %s\n", job.id().c_str(),
                  job.state() == pb::JOB_STATE_CANCELLED ? "cancelled" : "cancel requested");
    return kExitOk;
  }
  int code = watch_job(connection, job.id(), true, args.json);
  return code == kExitCancelled ? kExitOk : code;  // the cancel did what was asked
}

int caps_command(bool json, const Connection& connection) {
  grpc::ClientContext context;
  prepare_context(context, connection);
  pb::Capabilities caps;
  grpc::Status status =
      stub_for(connection)->GetCapabilities(&context, pb::GetCapabilitiesRequest(), &caps);
  if (!status.ok()) return rpc_failure(status);
  if (json) {
    std::cout << to_json(caps);
    return kExitOk;
  }
  std::printf("transcoded %s\n", caps.version().c_str());
  for (const pb::Device& d : caps.devices()) {
    std::printf("%s %s%s%s%s\n", d.backend().c_str(), d.path().c_str(),
                d.driver().empty() ? "" : (" (" + d.driver() + ")").c_str(),
                d.model().empty() ? "" : (" " + d.model()).c_str(),
                d.usable() ? "" : (": not used: " + d.unusable_reason()).c_str());
    if (!d.usable()) continue;
    std::printf("  slots %d, running %d, %s\n", d.slots(), d.running(), capacity_text(d).c_str());
    auto join = [](const auto& list) {
      std::string text;
      for (const std::string& s : list) text += (text.empty() ? "" : " ") + s;
      return text.empty() ? std::string("-") : text;
    };
    if (d.backend() != "software")
      std::printf("  decode: %s\n  encode: %s\n", join(d.decode_codecs()).c_str(),
                  join(d.encode_codecs()).c_str());
  }
  for (const std::string& note : caps.notes()) std::printf("note: %s\n", note.c_str());
  return kExitOk;
}

int profiles_command(bool json) {
  std::vector<IntelProfileSummary> profiles = intel_profiles();
  if (json) {
    nlohmann::json list = nlohmann::json::array();
    for (const IntelProfileSummary& p : profiles)
      list.push_back({{"key", p.key},
                      {"aliases", p.aliases},
                      {"name", p.name},
                      {"kernel_driver", p.kernel_driver},
                      {"huc_by_default", p.huc_by_default},
                      {"caps", p.what}});
    std::cout << list.dump(2) << "\n";
    return kExitOk;
  }
  for (const IntelProfileSummary& p : profiles) {
    std::printf("%-4s %s [%s%s]%s\n", std::string(p.key).c_str(), std::string(p.name).c_str(),
                std::string(p.kernel_driver).c_str(), p.huc_by_default ? ", HuC" : ", no HuC",
                p.aliases.empty() ? "" : ("  also: " + std::string(p.aliases)).c_str());
    std::printf("     %s\n", p.what.c_str());
  }
  std::printf(
      "modifiers: NAME:huc, NAME:no-huc, NAME:xe, NAME:i915 (transcode run --dry-run "
      "--assume-device NAME[:MOD...])\n");
  return kExitOk;
}

// grpc.health.v1.Health/Check through the generic stub: the request and reply are one field
// each, so hand encoding beats vendoring health.proto into the client.
int health_command(const std::string& service, const Connection& connection) {
  std::string request_bytes;
  if (!service.empty() && service.size() < 128)
    request_bytes = std::string("\x0a", 1) + static_cast<char>(service.size()) + service;
  grpc::Slice slice(request_bytes);
  grpc::ByteBuffer request(&slice, 1), response;
  grpc::GenericStub stub(make_channel(connection));
  grpc::ClientContext context;
  prepare_context(context, connection, std::chrono::seconds(10));
  std::promise<grpc::Status> done;
  stub.UnaryCall(&context, "/grpc.health.v1.Health/Check", grpc::StubOptions(), &request, &response,
                 [&done](grpc::Status s) { done.set_value(std::move(s)); });
  grpc::Status status = done.get_future().get();
  if (!status.ok()) return rpc_failure(status);
  std::vector<grpc::Slice> slices;
  (void)response.Dump(&slices);
  std::string bytes;
  for (const grpc::Slice& s : slices)
    bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
  int value = bytes.size() == 2 && bytes[0] == 0x08 ? bytes[1] : 0;
  const char* names[] = {"UNKNOWN", "SERVING", "NOT_SERVING", "SERVICE_UNKNOWN"};
  std::printf("%s\n", names[value >= 0 && value <= 3 ? value : 0]);
  return value == 1 ? kExitOk : kExitUnavailable;
}

}  // namespace tc::client
