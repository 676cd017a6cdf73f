// How the client reaches the daemon: address, TLS files, bearer token. Options come from the
// command line (every client command has them) with environment fallbacks, so scripts can set
// TC_SERVER / TC_TOKEN once.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "pipeline/core/status.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace tc::client {

struct Connection {
  std::string server = "127.0.0.1:50051";  // --server, else $TC_SERVER
  std::string tls_ca;    // --tls-ca FILE: TLS on, trusting this CA (set: TLS to the server)
  std::string tls_cert;  // --tls-cert / --tls-key: a client certificate for mTLS
  std::string tls_key;
  bool tls = false;   // --tls: TLS with the system's trusted CAs
  std::string token;  // --token-file FILE, else $TC_TOKEN
};

// The connection options of one client command, bound to its CLI11 App.
class ConnectionOptions {
 public:
  explicit ConnectionOptions(CLI::App& command);
  // The connection the parsed options (and the environment) describe; kInvalidArgument names a
  // bad option.
  Result<Connection> connection() const;

 private:
  CLI::Option* server_;
  CLI::Option* tls_;
  CLI::Option* tls_ca_;
  CLI::Option* tls_cert_;
  CLI::Option* tls_key_;
  CLI::Option* token_file_;
};

std::shared_ptr<grpc::Channel> make_channel(const Connection& connection);

// Adds the token and a deadline (0 = none: watch streams run as long as the job).
void prepare_context(grpc::ClientContext& context, const Connection& connection,
                     std::chrono::seconds deadline = std::chrono::seconds(30));

}  // namespace tc::client
