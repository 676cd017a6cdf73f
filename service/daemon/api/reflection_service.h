// gRPC server reflection (grpc.reflection.v1alpha), served by the daemon itself so that it sits
// behind authentication like every other service: the static token or any tenant's API key
// (caller_auth.h). It describes the API only, never a job, so every authenticated caller may
// use it. gRPC's built-in reflection plugin answers before any handler of ours runs, so it could
// only be on for everyone or off.
#pragma once

#include <grpcpp/grpcpp.h>

#include <string>
#include <vector>

#include "grpc/reflection/v1alpha/reflection.grpc.pb.h"
#include "service/daemon/store/tenant_directory.h"

namespace tc::daemon {

class ReflectionService final : public grpc::reflection::v1alpha::ServerReflection::Service {
 public:
  // `services`: the full names ListServices answers. `token` empty = no token needed (as for
  // the Transcoder service). `tenants` (the keys) must outlive this.
  ReflectionService(std::vector<std::string> services, std::string token, TenantDirectory& tenants)
      : services_(std::move(services)), token_(std::move(token)), tenants_(tenants) {}

  // Cheap lookups in the process's descriptor pool: no media work, so on the RPC thread.
  grpc::Status ServerReflectionInfo(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<grpc::reflection::v1alpha::ServerReflectionResponse,
                               grpc::reflection::v1alpha::ServerReflectionRequest>* stream)
      override;

 private:
  grpc::reflection::v1alpha::ServerReflectionResponse answer(
      const grpc::reflection::v1alpha::ServerReflectionRequest& request) const;

  const std::vector<std::string> services_;
  const std::string token_;
  TenantDirectory& tenants_;
};

}  // namespace tc::daemon
