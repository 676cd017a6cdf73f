#include "service/client/connection.h"

#include <CLI/CLI.hpp>

#include <cstdlib>

#include "pipeline/core/file.h"

namespace tc::client {
namespace {

constexpr const char* kGroup = "Connection options";

std::string last_or(const CLI::Option* option, std::string fallback) {
  return option->count() ? option->results().back() : std::move(fallback);
}

std::string from_environment(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

}  // namespace

ConnectionOptions::ConnectionOptions(CLI::App& command) {
  auto add = [&command](const char* flag, const char* value_name, const char* help) {
    return command.add_option(flag)->description(help)->type_name(value_name)->group(kGroup);
  };
  server_ =
      add("--server", "ADDR", "host:port or unix:PATH (default 127.0.0.1:50051, or $TC_SERVER)");
  tls_ = command.add_flag("--tls")->description("TLS, trusting the system's CAs")->group(kGroup);
  tls_ca_ = add("--tls-ca", "FILE", "TLS, trusting this CA");
  tls_cert_ = add("--tls-cert", "FILE", "client certificate (mTLS; with --tls-key)");
  tls_key_ = add("--tls-key", "FILE", "client private key (mTLS; with --tls-cert)");
  token_file_ = add("--token-file", "FILE", "bearer token (or $TC_TOKEN)");
}

Result<Connection> ConnectionOptions::connection() const {
  Connection c;
  std::string env_server = from_environment("TC_SERVER");
  c.server = last_or(server_, env_server.empty() ? c.server : env_server);
  c.tls_ca = last_or(tls_ca_, "");
  c.tls_cert = last_or(tls_cert_, "");
  c.tls_key = last_or(tls_key_, "");
  c.token = from_environment("TC_TOKEN");
  if (token_file_->count()) {
    Result<std::string> text = read_file(token_file_->results().back());
    if (!text.is_ok())
      return Status(Code::kInvalidArgument, "--token-file: " + text.status().message());
    c.token = text->substr(0, text->find_first_of("\r\n"));
  }
  if (c.tls_cert.empty() != c.tls_key.empty())
    return Status(Code::kInvalidArgument, "--tls-cert and --tls-key go together");
  c.tls = tls_->count() > 0 || !c.tls_ca.empty() || !c.tls_cert.empty();
  return c;
}

std::shared_ptr<grpc::Channel> make_channel(const Connection& c) {
  if (!c.tls) return grpc::CreateChannel(c.server, grpc::InsecureChannelCredentials());
  grpc::SslCredentialsOptions options;
  // An unreadable file means no CA/cert here, and the handshake fails saying so.
  if (!c.tls_ca.empty()) options.pem_root_certs = read_file_or_empty(c.tls_ca);
  if (!c.tls_cert.empty()) {
    options.pem_cert_chain = read_file_or_empty(c.tls_cert);
    options.pem_private_key = read_file_or_empty(c.tls_key);
  }
  return grpc::CreateChannel(c.server, grpc::SslCredentials(options));
}

void prepare_context(grpc::ClientContext& context, const Connection& c,
                     std::chrono::seconds deadline) {
  // A plain header rather than call credentials: gRPC refuses those on an insecure channel,
  // and a token over a unix socket or loopback is a legitimate setup.
  if (!c.token.empty()) context.AddMetadata("authorization", "Bearer " + c.token);
  if (deadline.count() > 0) context.set_deadline(std::chrono::system_clock::now() + deadline);
}

}  // namespace tc::client
