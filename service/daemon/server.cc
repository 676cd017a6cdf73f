#include "service/daemon/server.h"

#include <grpcpp/health_check_service_interface.h>

#include "pipeline/core/file.h"
#include "transcode/v1/transcoder.grpc.pb.h"

namespace tc::daemon {
namespace {

std::shared_ptr<grpc::ServerCredentials> credentials(const DaemonConfig& config) {
  if (config.tls_cert.empty()) return grpc::InsecureServerCredentials();
  grpc::SslServerCredentialsOptions options(
      config.tls_client_ca.empty() ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
                                   : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  options.pem_root_certs =
      config.tls_client_ca.empty() ? "" : read_file_or_empty(config.tls_client_ca);
  options.pem_key_cert_pairs.push_back(
      {read_file_or_empty(config.tls_key), read_file_or_empty(config.tls_cert)});
  return grpc::SslServerCredentials(options);
}

// "127.0.0.1:0" bound to port 43121 -> "127.0.0.1:43121"; unix addresses stay as they are.
std::string bound_address(const std::string& listen, int port) {
  if (listen.rfind("unix:", 0) == 0 || port <= 0) return listen;
  return listen.substr(0, listen.rfind(':')) + ":" + std::to_string(port);
}

// The health-only server on health_listen: the default health service (enabled before any
// builder) and reflection of it alone.
Status start_health_server(const DaemonConfig& config, TenantDirectory& tenants,
                           StartedServer& started) {
  grpc::ServerBuilder builder;
  int port = 0;
  const std::string& listen = config.health_listen;
  builder.AddListeningPort(listen, grpc::InsecureServerCredentials(), &port);
  started.health_reflection = std::make_unique<ReflectionService>(
      std::vector<std::string>{"grpc.health.v1.Health"}, config.auth_token, tenants);
  builder.RegisterService(started.health_reflection.get());
  started.health = builder.BuildAndStart();
  if (!started.health || port == 0)
    return Status(Code::kInternal, "health_listen: cannot listen on " + listen);
  started.health_address = bound_address(listen, port);
  return {};
}

// The HTTP/JSON API on http_listen: the Transcoder's routes, through the server's in-process
// channel, with the gRPC listener's TLS certificate and its message size bound.
Status start_http_gateway(const DaemonConfig& config, StartedServer& started) {
  HttpGatewayOptions options;
  options.listen = config.http_listen;
  if (!config.tls_cert.empty()) {
    options.tls_cert_pem = read_file_or_empty(config.tls_cert);
    options.tls_key_pem = read_file_or_empty(config.tls_key);
  }
  options.max_body_bytes = GRPC_DEFAULT_MAX_RECV_MESSAGE_LENGTH;
  TC_ASSIGN_OR_RETURN(started.http,
                      HttpGateway::start(std::move(options),
                                         started.server->InProcessChannel(grpc::ChannelArguments()),
                                         transcoder_service()));
  return {};
}

void set_server_serving(grpc::Server& server, bool serving) {
  grpc::HealthCheckServiceInterface* health = server.GetHealthCheckService();
  if (!health) return;
  // By name too: the default service knows only the names it was told (and "").
  health->SetServingStatus(transcode::v1::Transcoder::service_full_name(), serving);
  health->SetServingStatus(serving);
}

}  // namespace

Result<StartedServer> start_server(const DaemonConfig& config, grpc::Service* service,
                                   TenantDirectory& tenants) {
  // Set before the builder exists: it registers as a builder plugin. Health answers without the
  // token (probes carry none); it says only SERVING or not.
  grpc::EnableDefaultHealthCheckService(true);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(config.listen, credentials(config), &port);
  builder.RegisterService(service);
  StartedServer started;
  // Reflection describes the API: behind the token or a tenant's key, like the API itself.
  started.reflection = std::make_unique<ReflectionService>(
      std::vector<std::string>{transcode::v1::Transcoder::service_full_name(),
                               "grpc.health.v1.Health",
                               grpc::reflection::v1alpha::ServerReflection::service_full_name()},
      config.auth_token, tenants);
  builder.RegisterService(started.reflection.get());
  started.server = builder.BuildAndStart();
  bool is_unix = config.listen.rfind("unix:", 0) == 0;
  if (!started.server || (!is_unix && port == 0))
    return Status(Code::kInternal, "listen: cannot listen on " + config.listen);
  started.address = bound_address(config.listen, port);
  if (!config.health_listen.empty())
    TC_RETURN_IF_ERROR(start_health_server(config, tenants, started));
  if (!config.http_listen.empty()) TC_RETURN_IF_ERROR(start_http_gateway(config, started));
  return started;
}

void set_serving(StartedServer& server, bool serving) {
  set_server_serving(*server.server, serving);
  if (server.health) set_server_serving(*server.health, serving);
}

}  // namespace tc::daemon
