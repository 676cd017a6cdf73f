// The gRPC server: the Transcoder service, reflection (both behind the token when one is set)
// and the standard health service, on loopback or a unix socket by default, TLS (optionally
// mutual) when configured.
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "pipeline/core/status.h"
#include "service/daemon/api/reflection_service.h"
#include "service/daemon/config.h"
#include "service/daemon/http/gateway.h"

namespace tc::daemon {

struct StartedServer {
  // Declared before the server, which must stop before the services it serves are freed.
  std::unique_ptr<ReflectionService> reflection;
  std::unique_ptr<grpc::Server> server;
  std::string address;  // as bound: "127.0.0.1:43121" when the port was 0
  // health_listen's server: grpc.health.v1, plaintext, no token (it says only SERVING or not),
  // so that Kubernetes' grpc probes, which cannot speak TLS, work beside a TLS `listen`; and
  // reflection naming only that service (behind the token), which also gives gRPC's synchronous
  // server the one service of its own it needs to start.
  std::unique_ptr<ReflectionService> health_reflection;
  std::unique_ptr<grpc::Server> health;
  std::string health_address;
  // http_listen's HTTP/JSON API, forwarding to `server` in-process: declared after it, so it
  // stops (waiting for its connections) before the server is freed.
  std::unique_ptr<HttpGateway> http;
};

// `tenants` (the API keys reflection accepts) must outlive the server.
Result<StartedServer> start_server(const DaemonConfig& config, grpc::Service* service,
                                   TenantDirectory& tenants);

// Health of every service: SERVING while jobs are accepted, NOT_SERVING from shutdown on.
void set_serving(StartedServer& server, bool serving);

}  // namespace tc::daemon
