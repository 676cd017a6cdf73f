#include "service/daemon/api/transcoder_service.h"

#include <algorithm>

#include "service/api/preset_proto.h"
#include "service/daemon/api/caller_auth.h"
#include "service/daemon/api/grpc_status.h"
#include "service/daemon/api/job_log_proto.h"
#include "service/daemon/api/proto_convert.h"
#include "service/daemon/api/watch_reactor.h"
#include "service/daemon/api/wire_message.h"
#include "service/daemon/webhook/webhook_url.h"

namespace tc::daemon {
namespace {

// Finishes a unary call with `status`; every unary handler ends here.
grpc::ServerUnaryReactor* finish(grpc::CallbackServerContext* context, const ApiStatus& status) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(to_grpc_status(status));
  return reactor;
}

// GetJob's and CancelJob's reply: the id bounded, `act` on it, the job it leaves.
template <class Act>
ApiStatus job_reply(const std::string& id, pb::Job& reply, Act act) {
  TC_API_RETURN_IF_ERROR(check_length(id, kMaxIdBytes, "id"));
  JobRecord job;
  TC_API_RETURN_IF_ERROR(act(id, job));
  job_to_proto(job, &reply);
  return {};
}

}  // namespace

ApiStatus TranscoderService::authorize(const grpc::CallbackServerContext& context,
                                       Caller& caller) const {
  return authenticate(context, token_, manager_.tenants(), caller);
}

ApiStatus TranscoderService::create(const Caller& caller, const pb::CreateJobRequest& request,
                                    pb::Job& response) {
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
  TC_API_RETURN_IF_ERROR(manager_.create(caller, std::move(job), record).within("config"));
  job_to_proto(record, &response);
  return {};
}

ApiStatus TranscoderService::list(const Caller& caller, const pb::ListJobsRequest& request,
                                  pb::ListJobsResponse& response) {
  std::optional<JobState> state;
  if (request.state() != pb::JOB_STATE_UNSPECIFIED) {
    state = state_from_proto(request.state());
    if (!state)
      return {ApiCode::kInvalidArgument, ApiReason::kInvalidField, "state", "unknown value"};
  }
  TC_API_RETURN_IF_ERROR(check_length(request.page_token(), kMaxIdBytes, "page_token"));
  JobPage page;
  TC_API_RETURN_IF_ERROR(
      manager_.list(caller, state, request.page_size(), request.page_token(), page));
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

template <class Request, class Response, class Handle>
grpc::ServerUnaryReactor* TranscoderService::unary(grpc::CallbackServerContext* context,
                                                   const grpc::ByteBuffer* wire,
                                                   grpc::ByteBuffer* reply, Handle handle) {
  Request request;
  Response response;
  Caller caller;
  ApiStatus status = authorize(*context, caller);
  if (status.is_ok()) status = parse_request(*wire, request);
  if (status.is_ok()) status = handle(caller, request, response);
  if (status.is_ok()) *reply = serialized(response);
  return finish(context, status);
}

grpc::ServerUnaryReactor* TranscoderService::CreateJob(grpc::CallbackServerContext* context,
                                                       const grpc::ByteBuffer* request,
                                                       grpc::ByteBuffer* response) {
  return unary<pb::CreateJobRequest, pb::Job>(
      context, request, response,
      [this](const Caller& caller, const pb::CreateJobRequest& r, pb::Job& job) {
        return create(caller, r, job);
      });
}

grpc::ServerUnaryReactor* TranscoderService::GetJob(grpc::CallbackServerContext* context,
                                                    const grpc::ByteBuffer* request,
                                                    grpc::ByteBuffer* response) {
  return unary<pb::GetJobRequest, pb::Job>(
      context, request, response,
      [this](const Caller& caller, const pb::GetJobRequest& r, pb::Job& out) {
        return job_reply(r.id(), out, [&](const std::string& id, JobRecord& job) {
          return manager_.get(caller, id, job);
        });
      });
}

grpc::ServerUnaryReactor* TranscoderService::GetJobLogs(grpc::CallbackServerContext* context,
                                                        const grpc::ByteBuffer* request,
                                                        grpc::ByteBuffer* response) {
  return unary<pb::GetJobLogsRequest, pb::GetJobLogsResponse>(
      context, request, response,
      [this](const Caller& caller, const pb::GetJobLogsRequest& r,
             pb::GetJobLogsResponse& out) -> ApiStatus {
        TC_API_RETURN_IF_ERROR(check_length(r.id(), kMaxIdBytes, "id"));
        JobLog log;
        TC_API_RETURN_IF_ERROR(manager_.logs(caller, r.id(), r.attempt(), log));
        job_log_to_proto(log, &out);
        return {};
      });
}

grpc::ServerUnaryReactor* TranscoderService::ListJobs(grpc::CallbackServerContext* context,
                                                      const grpc::ByteBuffer* request,
                                                      grpc::ByteBuffer* response) {
  return unary<pb::ListJobsRequest, pb::ListJobsResponse>(
      context, request, response,
      [this](const Caller& caller, const pb::ListJobsRequest& r, pb::ListJobsResponse& out) {
        return list(caller, r, out);
      });
}

grpc::ServerUnaryReactor* TranscoderService::CancelJob(grpc::CallbackServerContext* context,
                                                       const grpc::ByteBuffer* request,
                                                       grpc::ByteBuffer* response) {
  return unary<pb::CancelJobRequest, pb::Job>(
      context, request, response,
      [this](const Caller& caller, const pb::CancelJobRequest& r, pb::Job& out) {
        return job_reply(r.id(), out, [&](const std::string& id, JobRecord& job) {
          return manager_.cancel(caller, id, job);
        });
      });
}

grpc::ServerWriteReactor<grpc::ByteBuffer>* TranscoderService::WatchJob(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* wire) {
  pb::WatchJobRequest request;
  Caller caller;
  ApiStatus status = authorize(*context, caller);
  if (status.is_ok()) status = parse_request(*wire, request);
  if (status.is_ok()) status = check_length(request.id(), kMaxIdBytes, "id");
  if (!status.is_ok()) {
    // A reactor that only finishes: the stream's error path.
    class Refusal : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
     public:
      explicit Refusal(const grpc::Status& status) { Finish(status); }
      void OnDone() override { delete this; }
    };
    return new Refusal(to_grpc_status(status));
  }
  return new WatchReactor(manager_, caller, request.id());
}

grpc::ServerUnaryReactor* TranscoderService::GetUsage(grpc::CallbackServerContext* context,
                                                      const grpc::ByteBuffer* request,
                                                      grpc::ByteBuffer* response) {
  return unary<pb::GetUsageRequest, pb::GetUsageResponse>(
      context, request, response,
      [this](const Caller& caller, const pb::GetUsageRequest& r, pb::GetUsageResponse& out) {
        return usage(caller, r, out);
      });
}

grpc::ServerUnaryReactor* TranscoderService::GetCapabilities(
    grpc::CallbackServerContext* context, const pb::GetCapabilitiesRequest* /*request*/,
    pb::Capabilities* response) {
  Caller caller;
  ApiStatus status = authorize(*context, caller);
  if (status.is_ok()) capabilities_to_proto(inventory_, manager_.devices(), response);
  response->set_version(TC_VERSION);
  return finish(context, status);
}

grpc::ServerUnaryReactor* TranscoderService::ListNodes(grpc::CallbackServerContext* context,
                                                       const pb::ListNodesRequest* /*request*/,
                                                       pb::ListNodesResponse* response) {
  Caller caller;
  ApiStatus status = authorize(*context, caller);
  if (!status.is_ok()) return finish(context, status);
  Result<std::vector<NodeRecord>> nodes = manager_.nodes();
  if (!nodes.is_ok()) return finish(context, {ApiCode::kInternal, nodes.status().message()});
  for (NodeRecord& node : *nodes) {
    if (!caller.admin) node.running_jobs = own_jobs(caller, node.running_jobs);
    node_to_proto(node, response->add_nodes());
  }
  return finish(context, {});
}

// Of `ids`, those the caller sees: a tenant is shown the nodes, but no other tenant's job ids.
std::vector<std::string> TranscoderService::own_jobs(const Caller& caller,
                                                     const std::vector<std::string>& ids) {
  std::vector<std::string> own;
  for (const std::string& id : ids) {
    JobRecord job;
    if (manager_.get(caller, id, job).is_ok()) own.push_back(id);
  }
  return own;
}

grpc::ServerUnaryReactor* TranscoderService::ListPresets(grpc::CallbackServerContext* context,
                                                         const pb::ListPresetsRequest* /*request*/,
                                                         pb::ListPresetsResponse* response) {
  Caller caller;
  ApiStatus status = authorize(*context, caller);
  if (!status.is_ok()) return finish(context, status);
  std::vector<const Preset*> by_name;
  for (const Preset& preset : presets_) by_name.push_back(&preset);
  std::sort(by_name.begin(), by_name.end(),
            [](const Preset* a, const Preset* b) { return a->name < b->name; });
  for (const Preset* preset : by_name) preset_to_proto(*preset, response->add_presets());
  return finish(context, {});
}

// The tenant RPCs (tenant_admin.h): an admin's. Those whose requests carry strings take bytes,
// checked on the wire as the job methods' are.
grpc::ServerUnaryReactor* TranscoderService::CreateTenant(grpc::CallbackServerContext* context,
                                                          const grpc::ByteBuffer* request,
                                                          grpc::ByteBuffer* response) {
  return unary<pb::CreateTenantRequest, pb::Tenant>(
      context, request, response,
      [this](const Caller& caller, const pb::CreateTenantRequest& r, pb::Tenant& out) {
        return admin().create_tenant(caller, r, out);
      });
}

grpc::ServerUnaryReactor* TranscoderService::UpdateTenant(grpc::CallbackServerContext* context,
                                                          const grpc::ByteBuffer* request,
                                                          grpc::ByteBuffer* response) {
  return unary<pb::UpdateTenantRequest, pb::Tenant>(
      context, request, response,
      [this](const Caller& caller, const pb::UpdateTenantRequest& r, pb::Tenant& out) {
        return admin().update_tenant(caller, r, out);
      });
}

grpc::ServerUnaryReactor* TranscoderService::ListTenants(grpc::CallbackServerContext* context,
                                                         const pb::ListTenantsRequest* /*request*/,
                                                         pb::ListTenantsResponse* response) {
  Caller caller;
  ApiStatus status = authorize(*context, caller);
  if (status.is_ok()) status = admin().list_tenants(caller, *response);
  return finish(context, status);
}

grpc::ServerUnaryReactor* TranscoderService::CreateApiKey(grpc::CallbackServerContext* context,
                                                          const grpc::ByteBuffer* request,
                                                          grpc::ByteBuffer* response) {
  return unary<pb::CreateApiKeyRequest, pb::ApiKey>(
      context, request, response,
      [this](const Caller& caller, const pb::CreateApiKeyRequest& r, pb::ApiKey& out) {
        return admin().create_key(caller, r, out);
      });
}

grpc::ServerUnaryReactor* TranscoderService::RevokeApiKey(grpc::CallbackServerContext* context,
                                                          const grpc::ByteBuffer* request,
                                                          grpc::ByteBuffer* response) {
  return unary<pb::RevokeApiKeyRequest, pb::ApiKey>(
      context, request, response,
      [this](const Caller& caller, const pb::RevokeApiKeyRequest& r, pb::ApiKey& out) {
        return admin().revoke_key(caller, r, out);
      });
}

grpc::ServerUnaryReactor* TranscoderService::RotateWebhookSecret(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  return unary<pb::RotateWebhookSecretRequest, pb::WebhookSecret>(
      context, request, response,
      [this](const Caller& caller, const pb::RotateWebhookSecretRequest& r,
             pb::WebhookSecret& out) { return admin().rotate_webhook_secret(caller, r, out); });
}

}  // namespace tc::daemon
