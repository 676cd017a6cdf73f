// `transcode submit`: the job options of `transcode run` (one parser), sent to the daemon.
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <random>
#include <thread>

#include "service/api/job_config.h"
#include "service/client/commands.h"
#include "service/client/job_view.h"
#include "service/common/exit_codes.h"
#include "transcode/v1/transcoder.grpc.pb.h"

namespace tc::client {
namespace {

int usage(const std::string& message) {
  std::fprintf(stderr, "transcode submit: %s\n", message.c_str());
  return kExitUsage;
}

// The daemon runs elsewhere (another working directory): send absolute paths.
std::string absolute(const std::string& path) {
  if (path.find("://") != std::string::npos || path.empty() || path[0] == '/') return path;
  return (std::filesystem::current_path() / path).lexically_normal().string();
}

std::string random_request_id() {
  std::mt19937_64 random{std::random_device{}()};
  char text[40];
  std::snprintf(text, sizeof text, "cli-%016llx", static_cast<unsigned long long>(random()));
  return text;
}

// The request carries a request id, so retrying after a lost reply cannot make a second job.
grpc::Status create_with_retry(pb::Transcoder::Stub& stub, const Connection& connection,
                               const pb::CreateJobRequest& request, pb::Job& job) {
  grpc::Status status;
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(500 * attempt));
    grpc::ClientContext context;
    prepare_context(context, connection);
    status = stub.CreateJob(&context, request, &job);
    if (status.error_code() != grpc::StatusCode::UNAVAILABLE) break;
  }
  return status;
}

}  // namespace

int submit_command(const SubmitArgs& args, const Connection& connection) {
  const cli::JobArgs& parsed = args.job;
  if (parsed.dry_run) return usage("--dry-run: use `transcode run --dry-run`");
  JobSpec spec = parsed.spec;
  spec.input = absolute(spec.input);
  if (spec.package.on())
    spec.package.dir = absolute(spec.package.dir);  // the outputs are rendition names in it
  else
    for (OutputSpec& output : spec.outputs) output.path = absolute(output.path);

  pb::CreateJobRequest request;
  config_from_spec(spec, request.mutable_config());
  request.set_priority(args.priority);
  for (const auto& [k, v] : args.labels) (*request.mutable_labels())[k] = v;
  request.set_request_id(args.request_id.empty() ? random_request_id() : args.request_id);
  request.set_webhook_url(args.webhook_url);

  auto stub = pb::Transcoder::NewStub(make_channel(connection));
  pb::Job job;
  grpc::Status status = create_with_retry(*stub, connection, request, job);
  if (!status.ok()) return rpc_failure(status);
  if (args.wait) return watch_job(connection, job.id(), parsed.quiet, parsed.json);
  std::cout << (parsed.json ? to_json(job) : job.id() + "\n");
  return kExitOk;
}

}  // namespace tc::client
