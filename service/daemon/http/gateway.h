// The HTTP/JSON API: the gRPC service's routes (routes.h) on libmicrohttpd, each request
// forwarded to the service through the server's in-process channel, as grpc-gateway does out of
// process. The token, the request checks and bounds and the error reasons are therefore the
// gRPC API's own; this adds only JSON <-> proto (protobuf's JSON mapping), the route table and
// the HTTP status of each gRPC code. A connection has its own thread (libmicrohttpd's
// thread-per-connection), which blocks only on the forwarded call: no media work and no store
// I/O happen on it beyond what the gRPC handler does.
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>
#include <vector>

#include "pipeline/core/status.h"
#include "service/daemon/http/routes.h"

struct MHD_Daemon;
struct MHD_Connection;

namespace tc::daemon {

struct HttpGatewayOptions {
  std::string listen;        // host:port; port 0 picks a free one
  std::string tls_cert_pem;  // PEM text; set with the key = HTTPS
  std::string tls_key_pem;
  size_t max_body_bytes = 0;  // a larger request body is refused (413), as gRPC refuses it
};

class HttpGateway {
 public:
  static Result<std::unique_ptr<HttpGateway>> start(
      HttpGatewayOptions options, std::shared_ptr<grpc::Channel> channel,
      const google::protobuf::ServiceDescriptor& service);
  // Stops listening and waits for the connections' threads: a watch ends when its call does
  // (the gRPC server's shutdown cancels it).
  ~HttpGateway();
  HttpGateway(const HttpGateway&) = delete;
  HttpGateway& operator=(const HttpGateway&) = delete;

  const std::string& address() const { return address_; }  // as bound: "127.0.0.1:43125"
  size_t max_body_bytes() const { return options_.max_body_bytes; }

  // libmicrohttpd's request handler (public for its C callback).
  struct Exchange;
  int respond(MHD_Connection* connection, const std::string& verb, const std::string& path,
              const Exchange& exchange);

 private:
  HttpGateway() = default;
  int forward(MHD_Connection* connection, const RouteMatch& match, const Exchange& exchange);

  HttpGatewayOptions options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::vector<Route> routes_;
  std::string address_;
  MHD_Daemon* daemon_ = nullptr;
};

}  // namespace tc::daemon
