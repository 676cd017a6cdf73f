// transcode.v1.Transcoder on gRPC's callback API. Handlers resolve the caller (caller_auth.h:
// the static token, or a tenant's API key), convert,
// call the JobManager and finish: none of them waits on media work. The unary methods that carry
// strings (and WatchJob) take their requests as bytes: each string field is checked on the wire
// (NUL, invalid UTF-8; request_text.h) before parsing, so that a bad one is INVALID_ARGUMENT naming
// the field rather than the bare status gRPC gives a request that protobuf cannot parse.
#pragma once

#include <grpcpp/grpcpp.h>

#include <string>
#include <vector>

#include "pipeline/hw/devices.h"
#include "service/daemon/api/tenant_admin.h"
#include "service/daemon/jobs/job_manager.h"
#include "service/daemon/model/api_status.h"
#include "service/presets/preset.h"
#include "transcode/v1/transcoder.grpc.pb.h"

namespace tc::daemon {

namespace api = transcode::v1;
using JobMethodsBase = api::Transcoder::WithRawCallbackMethod_GetJobLogs<
    api::Transcoder::WithRawCallbackMethod_CreateJob<api::Transcoder::WithRawCallbackMethod_GetJob<
        api::Transcoder::WithRawCallbackMethod_ListJobs<
            api::Transcoder::WithRawCallbackMethod_CancelJob<
                api::Transcoder::WithRawCallbackMethod_WatchJob<
                    api::Transcoder::WithRawCallbackMethod_GetUsage<
                        api::Transcoder::CallbackService>>>>>>>;
using TranscoderBase = api::Transcoder::WithRawCallbackMethod_CreateTenant<
    api::Transcoder::WithRawCallbackMethod_UpdateTenant<
        api::Transcoder::WithRawCallbackMethod_CreateApiKey<
            api::Transcoder::WithRawCallbackMethod_RevokeApiKey<
                api::Transcoder::WithRawCallbackMethod_RotateWebhookSecret<JobMethodsBase>>>>>;

class TranscoderService final : public TranscoderBase {
 public:
  // `token` empty = no token needed. `inventory` is discovery's result at start-up. `presets`:
  // what ListPresets serves (the built-ins and preset_dir's, read at start-up).
  TranscoderService(JobManager& manager, HwInventory inventory, std::string token,
                    std::vector<Preset> presets = {})
      : manager_(manager),
        inventory_(std::move(inventory)),
        token_(std::move(token)),
        presets_(std::move(presets)) {}

  grpc::ServerUnaryReactor* CreateJob(grpc::CallbackServerContext* context,
                                      const grpc::ByteBuffer* request,
                                      grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* GetJob(grpc::CallbackServerContext* context,
                                   const grpc::ByteBuffer* request,
                                   grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* ListJobs(grpc::CallbackServerContext* context,
                                     const grpc::ByteBuffer* request,
                                     grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* CancelJob(grpc::CallbackServerContext* context,
                                      const grpc::ByteBuffer* request,
                                      grpc::ByteBuffer* response) override;
  grpc::ServerWriteReactor<grpc::ByteBuffer>* WatchJob(grpc::CallbackServerContext* context,
                                                       const grpc::ByteBuffer* request) override;
  grpc::ServerUnaryReactor* GetJobLogs(grpc::CallbackServerContext* context,
                                       const grpc::ByteBuffer* request,
                                       grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* GetCapabilities(grpc::CallbackServerContext* context,
                                            const transcode::v1::GetCapabilitiesRequest* request,
                                            transcode::v1::Capabilities* response) override;
  grpc::ServerUnaryReactor* ListNodes(grpc::CallbackServerContext* context,
                                      const transcode::v1::ListNodesRequest* request,
                                      transcode::v1::ListNodesResponse* response) override;
  grpc::ServerUnaryReactor* ListPresets(grpc::CallbackServerContext* context,
                                        const transcode::v1::ListPresetsRequest* request,
                                        transcode::v1::ListPresetsResponse* response) override;
  // Its handler: usage() (usage_rpc.cc).
  grpc::ServerUnaryReactor* GetUsage(grpc::CallbackServerContext* context,
                                     const grpc::ByteBuffer* request,
                                     grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* CreateTenant(grpc::CallbackServerContext* context,
                                         const grpc::ByteBuffer* request,
                                         grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* UpdateTenant(grpc::CallbackServerContext* context,
                                         const grpc::ByteBuffer* request,
                                         grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* ListTenants(grpc::CallbackServerContext* context,
                                        const transcode::v1::ListTenantsRequest* request,
                                        transcode::v1::ListTenantsResponse* response) override;
  grpc::ServerUnaryReactor* CreateApiKey(grpc::CallbackServerContext* context,
                                         const grpc::ByteBuffer* request,
                                         grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* RevokeApiKey(grpc::CallbackServerContext* context,
                                         const grpc::ByteBuffer* request,
                                         grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* RotateWebhookSecret(grpc::CallbackServerContext* context,
                                                const grpc::ByteBuffer* request,
                                                grpc::ByteBuffer* response) override;

 private:
  // Authorizes, parses `wire` as a Request, runs `handle` and replies: every unary raw method.
  template <class Request, class Response, class Handle>
  grpc::ServerUnaryReactor* unary(grpc::CallbackServerContext* context,
                                  const grpc::ByteBuffer* wire, grpc::ByteBuffer* reply,
                                  Handle handle);
  ApiStatus authorize(const grpc::CallbackServerContext& context, Caller& caller) const;
  ApiStatus create(const Caller& caller, const transcode::v1::CreateJobRequest& request,
                   transcode::v1::Job& response);
  ApiStatus list(const Caller& caller, const transcode::v1::ListJobsRequest& request,
                 transcode::v1::ListJobsResponse& response);
  std::vector<std::string> own_jobs(const Caller& caller, const std::vector<std::string>& ids);
  ApiStatus usage(const Caller& caller, const transcode::v1::GetUsageRequest& request,
                  transcode::v1::GetUsageResponse& out);
  // The tenant RPCs' handler (tenant_admin.h).
  TenantAdmin admin() { return TenantAdmin(manager_.tenants(), manager_.media_roots()); }

  JobManager& manager_;
  const HwInventory inventory_;
  const std::string token_;
  const std::vector<Preset> presets_;
};

}  // namespace tc::daemon
