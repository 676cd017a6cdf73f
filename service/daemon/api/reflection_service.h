// gRPC server reflection (grpc.reflection.v1alpha), served by the daemon itself so that it sits
// behind the bearer token like every other service. gRPC's built-in reflection plugin answers
// before any handler of ours runs, so it could only be on for everyone or off.
#pragma once

#include <grpcpp/grpcpp.h>

#include <string>
#include <vector>

#include "grpc/reflection/v1alpha/reflection.grpc.pb.h"

namespace tc::daemon {

class ReflectionService final : public grpc::reflection::v1alpha::ServerReflection::Service {
 public:
  // `services`: the full names ListServices answers. `token` empty = no token needed.
  ReflectionService(std::vector<std::string> services, std::string token)
      : services_(std::move(services)), token_(std::move(token)) {}

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
};

}  // namespace tc::daemon
