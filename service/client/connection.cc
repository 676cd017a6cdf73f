#include "service/client/connection.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace tc::client {
namespace {

Result<std::string> read_file(const std::string& option, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(Code::kInvalidArgument, option + ": cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// "--opt VALUE" or "--opt=VALUE" at args[i]; erases what it consumed.
Result<bool> take(std::vector<std::string>& args, size_t i, const std::string& option,
                  std::string& value) {
  const std::string& arg = args[i];
  if (arg.rfind(option + "=", 0) == 0) {
    value = arg.substr(option.size() + 1);
    args.erase(args.begin() + static_cast<long>(i));
    return true;
  }
  if (arg != option) return false;
  if (i + 1 >= args.size()) return Status(Code::kInvalidArgument, option + ": needs a value");
  value = args[i + 1];
  args.erase(args.begin() + static_cast<long>(i), args.begin() + static_cast<long>(i) + 2);
  return true;
}

}  // namespace

Result<Connection> take_connection_options(std::vector<std::string>& args) {
  Connection c;
  if (const char* env = std::getenv("TC_SERVER"); env && *env) c.server = env;
  if (const char* env = std::getenv("TC_TOKEN"); env && *env) c.token = env;
  std::string token_file;
  const std::pair<const char*, std::string*> options[] = {{"--server", &c.server},
                                                          {"--tls-ca", &c.tls_ca},
                                                          {"--tls-cert", &c.tls_cert},
                                                          {"--tls-key", &c.tls_key},
                                                          {"--token-file", &token_file}};
  for (size_t i = 0; i < args.size();) {
    if (args[i] == "--tls") {
      c.tls = true;
      args.erase(args.begin() + static_cast<long>(i));
      continue;
    }
    bool taken = false;
    for (const auto& [option, field] : options) {
      TC_ASSIGN_OR_RETURN(taken, take(args, i, option, *field));
      if (taken) break;
    }
    if (!taken) ++i;
  }
  if (!token_file.empty()) {
    TC_ASSIGN_OR_RETURN(std::string text, read_file("--token-file", token_file));
    c.token = text.substr(0, text.find_first_of("\r\n"));
  }
  if (c.tls_cert.empty() != c.tls_key.empty())
    return Status(Code::kInvalidArgument, "--tls-cert and --tls-key go together");
  c.tls = c.tls || !c.tls_ca.empty() || !c.tls_cert.empty();
  return c;
}

std::shared_ptr<grpc::Channel> make_channel(const Connection& c) {
  if (!c.tls) return grpc::CreateChannel(c.server, grpc::InsecureChannelCredentials());
  grpc::SslCredentialsOptions options;
  // Files were checked readable when parsed; an unreadable one here just means no CA/cert.
  auto contents = [](const std::string& path) {
    Result<std::string> text = read_file("", path);
    return text.is_ok() ? *text : std::string();
  };
  if (!c.tls_ca.empty()) options.pem_root_certs = contents(c.tls_ca);
  if (!c.tls_cert.empty()) {
    options.pem_cert_chain = contents(c.tls_cert);
    options.pem_private_key = contents(c.tls_key);
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

std::string connection_help() {
  return R"(Connection options (every client command):
  --server ADDR         host:port or unix:PATH (default 127.0.0.1:50051, or $TC_SERVER)
  --tls                 TLS, trusting the system's CAs
  --tls-ca FILE         TLS, trusting this CA
  --tls-cert FILE --tls-key FILE   client certificate (mTLS)
  --token-file FILE     bearer token (or $TC_TOKEN)
)";
}

}  // namespace tc::client
