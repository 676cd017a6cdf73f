#include "service/daemon/server.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
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

// Removes gRPC's reflection plugin from a builder. Linking the reflection library registers it
// for every builder; this option is how one server goes without it.
class WithoutReflection : public grpc::ServerBuilderOption {
 public:
  void UpdateArguments(grpc::ChannelArguments* /*args*/) override {}
  void UpdatePlugins(std::vector<std::unique_ptr<grpc::ServerBuilderPlugin>>* plugins) override {
    std::erase_if(*plugins,
                  [](const auto& plugin) { return plugin->name() == "proto_server_reflection"; });
  }
};

// "127.0.0.1:0" bound to port 43121 -> "127.0.0.1:43121"; unix addresses stay as they are.
std::string bound_address(const std::string& listen, int port) {
  if (listen.rfind("unix:", 0) == 0 || port <= 0) return listen;
  return listen.substr(0, listen.rfind(':')) + ":" + std::to_string(port);
}

}  // namespace

Result<StartedServer> start_server(const DaemonConfig& config, grpc::Service* service) {
  // Both must be set before the builder exists: they register as builder plugins.
  grpc::EnableDefaultHealthCheckService(true);
  // The reflection service is gRPC's own: no handler of ours sees its calls, so it cannot sit
  // behind the token check. With a token set it is left out (it would describe the API to
  // anyone); the .proto files in proto/ say the same to a client that has them.
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  if (!config.auth_token.empty()) builder.SetOption(std::make_unique<WithoutReflection>());
  int port = 0;
  builder.AddListeningPort(config.listen, credentials(config), &port);
  builder.RegisterService(service);
  StartedServer started;
  started.server = builder.BuildAndStart();
  bool is_unix = config.listen.rfind("unix:", 0) == 0;
  if (!started.server || (!is_unix && port == 0))
    return Status(Code::kInternal, "listen: cannot listen on " + config.listen);
  started.address = bound_address(config.listen, port);
  return started;
}

void set_serving(grpc::Server& server, bool serving) {
  grpc::HealthCheckServiceInterface* health = server.GetHealthCheckService();
  if (!health) return;
  // By name too: the default service knows only the names it was told (and "").
  health->SetServingStatus(transcode::v1::Transcoder::service_full_name(), serving);
  health->SetServingStatus(serving);
}

}  // namespace tc::daemon
