// `transcode submit`: the job options of `transcode run` (one parser), sent to the daemon: one
// job, or a batch (several inputs with an output name template, or --jobs FILE).
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <thread>

#include "service/api/job_config.h"
#include "service/client/batch.h"
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

// The jobs a submit describes: the command line's (one per input) or the --jobs file's.
Result<std::vector<JobSpec>> jobs_of(const SubmitArgs& args) {
  const cli::JobArgs& parsed = args.job;
  if (args.jobs_file.empty())
    return parsed.inputs.size() > 1 ? jobs_for_inputs(parsed.spec, parsed.inputs)
                                    : Result<std::vector<JobSpec>>(std::vector{parsed.spec});
  if (args.jobs_file == "-") return jobs_from_lines(std::cin, "--jobs -");
  std::ifstream file(args.jobs_file);
  if (!file) return Status(Code::kInvalidArgument, "--jobs: cannot read '" + args.jobs_file + "'");
  return jobs_from_lines(file, "--jobs " + args.jobs_file);
}

pb::CreateJobRequest request_for(JobSpec spec, const SubmitArgs& args) {
  spec.input = absolute(spec.input);
  if (args.verbose_log) spec.verbose_log = true;  // a --jobs line may ask for it itself
  if (spec.package.on())
    spec.package.dir = absolute(spec.package.dir);  // the outputs are rendition names in it
  else
    for (OutputSpec& output : spec.outputs) output.path = absolute(output.path);
  pb::CreateJobRequest request;
  config_from_spec(spec, request.mutable_config());
  request.set_priority(args.priority);
  for (const auto& [k, v] : args.labels) (*request.mutable_labels())[k] = v;
  request.set_webhook_url(args.webhook_url);
  return request;
}

// A batch's request ids: ID-1, ID-2, ... for --request-id ID, so a retried batch makes the
// same jobs.
std::string batch_request_id(const SubmitArgs& args, size_t n, size_t count) {
  if (args.request_id.empty()) return random_request_id();
  return count == 1 ? args.request_id : args.request_id + "-" + std::to_string(n);
}

std::string without_last_newline(std::string text) {
  if (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

}  // namespace

int submit_command(const SubmitArgs& args, const Connection& connection) {
  const cli::JobArgs& parsed = args.job;
  if (parsed.dry_run) return usage("--dry-run: use `transcode run --dry-run`");
  Result<std::vector<JobSpec>> jobs = jobs_of(args);
  if (!jobs.is_ok()) return usage(jobs.status().message());
  bool batch = jobs->size() > 1 || !args.jobs_file.empty();

  auto stub = pb::Transcoder::NewStub(make_channel(connection));
  std::vector<pb::Job> created;
  for (size_t i = 0; i < jobs->size(); ++i) {
    pb::CreateJobRequest request = request_for((*jobs)[i], args);
    request.set_request_id(batch_request_id(args, i + 1, jobs->size()));
    pb::Job job;
    grpc::Status status = create_with_retry(*stub, connection, request, job);
    if (!status.ok()) return rpc_failure(status);
    if (!parsed.json && !args.wait) std::cout << job.id() << "\n" << std::flush;  // as it exists
    created.push_back(std::move(job));
  }
  std::vector<std::string> ids;
  for (const pb::Job& job : created) ids.push_back(job.id());
  if (args.wait && batch) return wait_jobs(connection, ids, parsed.json);
  if (args.wait) return watch_job(connection, ids.front(), parsed.quiet, parsed.json);
  if (parsed.json && !batch) std::cout << to_json(created.front());
  if (parsed.json && batch) {
    std::cout << "[\n";
    for (size_t i = 0; i < created.size(); ++i)
      std::cout << without_last_newline(to_json(created[i])) << (i + 1 < created.size() ? "," : "")
                << "\n";
    std::cout << "]\n";
  }
  return kExitOk;
}

}  // namespace tc::client
