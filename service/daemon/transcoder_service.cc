#include "service/daemon/transcoder_service.h"

#include "service/daemon/bearer_token.h"
#include "service/daemon/grpc_status.h"
#include "service/daemon/proto_convert.h"
#include "service/daemon/watch_reactor.h"
#include "service/daemon/webhook_url.h"

namespace tc::daemon {
namespace {

// Finishes a unary call with `status`; every unary handler ends here.
grpc::ServerUnaryReactor* finish(grpc::CallbackServerContext* context, const ApiStatus& status) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(to_grpc_status(status));
  return reactor;
}

}  // namespace

ApiStatus TranscoderService::authorize(const grpc::CallbackServerContext& context) const {
  return check_bearer_token(context, token_);
}

ApiStatus TranscoderService::create(const pb::CreateJobRequest& request, pb::Job& response) {
  TC_API_RETURN_IF_ERROR(check_length(request.request_id(), kMaxIdBytes, "request_id"));
  TC_API_RETURN_IF_ERROR(check_labels({request.labels().begin(), request.labels().end()}));
  if (!request.webhook_url().empty()) {
    Status url = check_webhook_url(request.webhook_url());
    if (!url.is_ok())
      return {ApiCode::kInvalidArgument, ApiReason::kInvalidField, "webhook_url", url.message()};
  }
  Result<JobSpec> spec = spec_from_config(request.config());
  // The spec's field names are the JobConfig's; the request holds it as "config".
  if (!spec.is_ok()) return ApiStatus::from_spec(spec.status()).within("config");
  NewJob job{std::move(*spec),
             request.priority(),
             {request.labels().begin(), request.labels().end()},
             request.request_id(),
             request.webhook_url()};
  JobRecord record;
  // The fields create() names are the spec's (apply_policy): under "config" too.
  TC_API_RETURN_IF_ERROR(manager_.create(std::move(job), record).within("config"));
  job_to_proto(record, &response);
  return {};
}

ApiStatus TranscoderService::list(const pb::ListJobsRequest& request,
                                  pb::ListJobsResponse& response) {
  std::optional<JobState> state;
  if (request.state() != pb::JOB_STATE_UNSPECIFIED) {
    state = state_from_proto(request.state());
    if (!state)
      return {ApiCode::kInvalidArgument, ApiReason::kInvalidField, "state", "unknown value"};
  }
  TC_API_RETURN_IF_ERROR(check_length(request.page_token(), kMaxIdBytes, "page_token"));
  JobPage page;
  TC_API_RETURN_IF_ERROR(manager_.list(state, request.page_size(), request.page_token(), page));
  // By bytes as well as by count: a page of jobs with large labels must still fit one reply.
  size_t bytes = 0;
  for (size_t i = 0; i < page.jobs.size(); ++i) {
    pb::Job job;
    job_to_proto(page.jobs[i], &job);
    bytes += job.ByteSizeLong();
    if (i > 0 && bytes > kMaxListBytes) {
      page.cut(i);
      break;
    }
    *response.add_jobs() = std::move(job);
  }
  response.set_next_page_token(page.next_page_token);
  return {};
}

grpc::ServerUnaryReactor* TranscoderService::CreateJob(grpc::CallbackServerContext* context,
                                                       const pb::CreateJobRequest* request,
                                                       pb::Job* response) {
  ApiStatus status = authorize(*context);
  if (status.is_ok()) status = create(*request, *response);
  return finish(context, status);
}

grpc::ServerUnaryReactor* TranscoderService::GetJob(grpc::CallbackServerContext* context,
                                                    const pb::GetJobRequest* request,
                                                    pb::Job* response) {
  ApiStatus status = authorize(*context);
  JobRecord job;
  if (status.is_ok()) status = check_length(request->id(), kMaxIdBytes, "id");
  if (status.is_ok()) status = manager_.get(request->id(), job);
  if (status.is_ok()) job_to_proto(job, response);
  return finish(context, status);
}

grpc::ServerUnaryReactor* TranscoderService::ListJobs(grpc::CallbackServerContext* context,
                                                      const pb::ListJobsRequest* request,
                                                      pb::ListJobsResponse* response) {
  ApiStatus status = authorize(*context);
  if (status.is_ok()) status = list(*request, *response);
  return finish(context, status);
}

grpc::ServerUnaryReactor* TranscoderService::CancelJob(grpc::CallbackServerContext* context,
                                                       const pb::CancelJobRequest* request,
                                                       pb::Job* response) {
  ApiStatus status = authorize(*context);
  JobRecord job;
  if (status.is_ok()) status = check_length(request->id(), kMaxIdBytes, "id");
  if (status.is_ok()) status = manager_.cancel(request->id(), job);
  if (status.is_ok()) job_to_proto(job, response);
  return finish(context, status);
}

grpc::ServerWriteReactor<pb::JobEvent>* TranscoderService::WatchJob(
    grpc::CallbackServerContext* context, const pb::WatchJobRequest* request) {
  ApiStatus status = authorize(*context);
  if (status.is_ok()) status = check_length(request->id(), kMaxIdBytes, "id");
  if (!status.is_ok()) {
    // A reactor that only finishes: the stream's error path.
    class Refusal : public grpc::ServerWriteReactor<pb::JobEvent> {
     public:
      explicit Refusal(const grpc::Status& status) { Finish(status); }
      void OnDone() override { delete this; }
    };
    return new Refusal(to_grpc_status(status));
  }
  return new WatchReactor(manager_, request->id());
}

grpc::ServerUnaryReactor* TranscoderService::GetCapabilities(
    grpc::CallbackServerContext* context, const pb::GetCapabilitiesRequest* /*request*/,
    pb::Capabilities* response) {
  ApiStatus status = authorize(*context);
  if (status.is_ok()) capabilities_to_proto(inventory_, manager_.devices(), response);
  response->set_version(TC_VERSION);
  return finish(context, status);
}

grpc::ServerUnaryReactor* TranscoderService::ListNodes(grpc::CallbackServerContext* context,
                                                       const pb::ListNodesRequest* /*request*/,
                                                       pb::ListNodesResponse* response) {
  ApiStatus status = authorize(*context);
  if (!status.is_ok()) return finish(context, status);
  Result<std::vector<NodeRecord>> nodes = manager_.nodes();
  if (!nodes.is_ok()) return finish(context, {ApiCode::kInternal, nodes.status().message()});
  for (const NodeRecord& node : *nodes) node_to_proto(node, response->add_nodes());
  return finish(context, {});
}

}  // namespace tc::daemon
