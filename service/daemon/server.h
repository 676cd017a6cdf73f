// The gRPC server: the Transcoder service, the standard health service and reflection, on
// loopback or a unix socket by default, TLS (optionally mutual) when configured.
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "pipeline/core/status.h"
#include "service/daemon/config.h"

namespace tc::daemon {

struct StartedServer {
  std::unique_ptr<grpc::Server> server;
  std::string address;  // as bound: "127.0.0.1:43121" when the port was 0
};

Result<StartedServer> start_server(const DaemonConfig& config, grpc::Service* service);

// Health of every service: SERVING while jobs are accepted, NOT_SERVING from shutdown on.
void set_serving(grpc::Server& server, bool serving);

}  // namespace tc::daemon
