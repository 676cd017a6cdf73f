// transcode.v1.Transcoder on gRPC's callback API. Handlers check the bearer token, convert,
// call the JobManager and finish: none of them waits on media work. The unary methods that carry
// strings (and WatchJob) take their requests as bytes: each string field is checked on the wire
// (NUL, invalid UTF-8; request_text.h) before parsing, so that a bad one is INVALID_ARGUMENT naming
// the field rather than the bare status gRPC gives a request that protobuf cannot parse.
#pragma once

#include <grpcpp/grpcpp.h>

#include <string>
#include <vector>

#include "pipeline/hw/devices.h"
#include "service/daemon/jobs/job_manager.h"
#include "service/daemon/model/api_status.h"
#include "service/presets/preset.h"
#include "transcode/v1/transcoder.grpc.pb.h"

namespace tc::daemon {

namespace api = transcode::v1;
using TranscoderBase = api::Transcoder::WithRawCallbackMethod_GetJobLogs<
    api::Transcoder::WithRawCallbackMethod_CreateJob<api::Transcoder::WithRawCallbackMethod_GetJob<
        api::Transcoder::WithRawCallbackMethod_ListJobs<
            api::Transcoder::WithRawCallbackMethod_CancelJob<
                api::Transcoder::WithRawCallbackMethod_WatchJob<
                    api::Transcoder::CallbackService>>>>>>;

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

 private:
  // Authorizes, parses `wire` as a Request, runs `handle` and replies: every unary raw method.
  template <class Request, class Response, class Handle>
  grpc::ServerUnaryReactor* unary(grpc::CallbackServerContext* context,
                                  const grpc::ByteBuffer* wire, grpc::ByteBuffer* reply,
                                  Handle handle);
  ApiStatus authorize(const grpc::CallbackServerContext& context) const;
  ApiStatus create(const transcode::v1::CreateJobRequest& request, transcode::v1::Job& response);
  ApiStatus list(const transcode::v1::ListJobsRequest& request,
                 transcode::v1::ListJobsResponse& response);

  JobManager& manager_;
  const HwInventory inventory_;
  const std::string token_;
  const std::vector<Preset> presets_;
};

}  // namespace tc::daemon
