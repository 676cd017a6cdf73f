// transcode.v1.Transcoder on gRPC's callback API. Handlers check the bearer token, convert,
// call the JobManager and finish: none of them waits on media work.
#pragma once

#include <grpcpp/grpcpp.h>

#include <string>

#include "pipeline/hw/devices.h"
#include "service/daemon/api_status.h"
#include "service/daemon/job_manager.h"
#include "transcode/v1/transcoder.grpc.pb.h"

namespace tc::daemon {

class TranscoderService final : public transcode::v1::Transcoder::CallbackService {
 public:
  // `token` empty = no token needed. `inventory` is discovery's result at start-up.
  TranscoderService(JobManager& manager, HwInventory inventory, std::string token)
      : manager_(manager), inventory_(std::move(inventory)), token_(std::move(token)) {}

  grpc::ServerUnaryReactor* CreateJob(grpc::CallbackServerContext* context,
                                      const transcode::v1::CreateJobRequest* request,
                                      transcode::v1::Job* response) override;
  grpc::ServerUnaryReactor* GetJob(grpc::CallbackServerContext* context,
                                   const transcode::v1::GetJobRequest* request,
                                   transcode::v1::Job* response) override;
  grpc::ServerUnaryReactor* ListJobs(grpc::CallbackServerContext* context,
                                     const transcode::v1::ListJobsRequest* request,
                                     transcode::v1::ListJobsResponse* response) override;
  grpc::ServerUnaryReactor* CancelJob(grpc::CallbackServerContext* context,
                                      const transcode::v1::CancelJobRequest* request,
                                      transcode::v1::Job* response) override;
  grpc::ServerWriteReactor<transcode::v1::JobEvent>* WatchJob(
      grpc::CallbackServerContext* context, const transcode::v1::WatchJobRequest* request) override;
  grpc::ServerUnaryReactor* GetCapabilities(grpc::CallbackServerContext* context,
                                            const transcode::v1::GetCapabilitiesRequest* request,
                                            transcode::v1::Capabilities* response) override;
  grpc::ServerUnaryReactor* ListNodes(grpc::CallbackServerContext* context,
                                      const transcode::v1::ListNodesRequest* request,
                                      transcode::v1::ListNodesResponse* response) override;

 private:
  ApiStatus authorize(const grpc::CallbackServerContext& context) const;
  ApiStatus create(const transcode::v1::CreateJobRequest& request, transcode::v1::Job& response);
  ApiStatus list(const transcode::v1::ListJobsRequest& request,
                 transcode::v1::ListJobsResponse& response);

  JobManager& manager_;
  const HwInventory inventory_;
  const std::string token_;
};

}  // namespace tc::daemon
