#include "service/daemon/http/gateway.h"

#include <google/protobuf/util/json_util.h>
#include <microhttpd.h>
#include <netdb.h>

#include <cstring>

#include "service/daemon/http/grpc_call.h"
#include "service/daemon/http/json_request.h"
#include "service/daemon/http/status_body.h"
#include "service/daemon/http/watch_stream.h"

namespace tc::daemon {

// One request's upload, gathered across libmicrohttpd's calls.
struct HttpGateway::Exchange {
  std::string body;
  bool too_large = false;
};

namespace {

MHD_Result send_json(MHD_Connection* connection, int http_status, const std::string& json) {
  MHD_Response* response = MHD_create_response_from_buffer(
      json.size(), const_cast<char*>(json.data()), MHD_RESPMEM_MUST_COPY);
  MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
  MHD_Result queued = MHD_queue_response(connection, http_status, response);
  MHD_destroy_response(response);
  return queued;
}

MHD_Result send_status(MHD_Connection* connection, const grpc::Status& status,
                       int http_status = 0) {
  return send_json(connection, http_status ? http_status : http_status_of(status.error_code()),
                   status_body(status));
}

MHD_Result collect_query(void* out, MHD_ValueKind, const char* key, const char* value) {
  static_cast<std::vector<std::pair<std::string, std::string>>*>(out)->emplace_back(
      key, value ? value : "");
  return MHD_YES;
}

ssize_t read_watch(void* stream, uint64_t, char* out, size_t max) {
  return static_cast<WatchStream*>(stream)->read(out, max);
}

void free_watch(void* stream) {
  delete static_cast<WatchStream*>(stream);
}

MHD_Result send_watch(MHD_Connection* connection, std::unique_ptr<WatchStream> stream) {
  MHD_Response* response = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, &read_watch,
                                                             stream.release(), &free_watch);
  MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
  MHD_add_response_header(response, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
  MHD_Result queued = MHD_queue_response(connection, MHD_HTTP_OK, response);
  MHD_destroy_response(response);
  return queued;
}

MHD_Result on_request(void* gateway, MHD_Connection* connection, const char* url, const char* verb,
                      const char*, const char* upload, size_t* upload_size, void** request_state) {
  auto* exchange = static_cast<HttpGateway::Exchange*>(*request_state);
  if (!exchange) {
    *request_state = new HttpGateway::Exchange;
    return MHD_YES;
  }
  if (*upload_size > 0) {
    // Bounded: what is over the limit is dropped, and the request is refused at its end.
    size_t limit = static_cast<HttpGateway*>(gateway)->max_body_bytes();
    exchange->too_large = exchange->too_large || exchange->body.size() + *upload_size > limit;
    if (!exchange->too_large) exchange->body.append(upload, *upload_size);
    *upload_size = 0;
    return MHD_YES;
  }
  return static_cast<MHD_Result>(
      static_cast<HttpGateway*>(gateway)->respond(connection, verb, url, *exchange));
}

void on_completed(void*, MHD_Connection*, void** request_state, MHD_RequestTerminationCode) {
  delete static_cast<HttpGateway::Exchange*>(*request_state);
  *request_state = nullptr;
}

// "127.0.0.1:8080" / "[::1]:0" / "localhost:0" as an address to bind.
Result<sockaddr_storage> resolve(const std::string& listen) {
  size_t colon = listen.rfind(':');
  std::string host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[') host = host.substr(1, host.size() - 2);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV | AI_PASSIVE;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.empty() ? nullptr : host.c_str(), listen.substr(colon + 1).c_str(), &hints,
                    &found) != 0 ||
      !found)
    return Status(Code::kInvalidArgument, "http_listen: cannot resolve " + listen);
  sockaddr_storage address{};
  std::memcpy(&address, found->ai_addr, found->ai_addrlen);
  ::freeaddrinfo(found);
  return address;
}

}  // namespace

Result<std::unique_ptr<HttpGateway>> HttpGateway::start(
    HttpGatewayOptions options, std::shared_ptr<grpc::Channel> channel,
    const google::protobuf::ServiceDescriptor& service) {
  std::unique_ptr<HttpGateway> gateway(new HttpGateway);
  gateway->options_ = std::move(options);
  gateway->channel_ = std::move(channel);
  gateway->routes_ = routes_of(service);
  const HttpGatewayOptions& o = gateway->options_;
  TC_ASSIGN_OR_RETURN(sockaddr_storage address, resolve(o.listen));
  bool tls = !o.tls_cert_pem.empty();
  if (tls && MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES)
    return Status(Code::kUnsupported, "http_listen: this libmicrohttpd has no TLS");
  unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
                   (address.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0) | (tls ? MHD_USE_TLS : 0);
  std::vector<MHD_OptionItem> items = {
      {MHD_OPTION_SOCK_ADDR, 0, &address},
      {MHD_OPTION_NOTIFY_COMPLETED, reinterpret_cast<intptr_t>(&on_completed), nullptr},
      {MHD_OPTION_CONNECTION_LIMIT, 256, nullptr}};
  if (tls) {
    items.push_back({MHD_OPTION_HTTPS_MEM_KEY, 0, const_cast<char*>(o.tls_key_pem.c_str())});
    items.push_back({MHD_OPTION_HTTPS_MEM_CERT, 0, const_cast<char*>(o.tls_cert_pem.c_str())});
  }
  items.push_back({MHD_OPTION_END, 0, nullptr});
  gateway->daemon_ = MHD_start_daemon(flags, 0, nullptr, nullptr, &on_request, gateway.get(),
                                      MHD_OPTION_ARRAY, items.data(), MHD_OPTION_END);
  if (!gateway->daemon_)
    return Status(Code::kInternal, "http_listen: cannot listen on " + o.listen);
  const MHD_DaemonInfo* bound = MHD_get_daemon_info(gateway->daemon_, MHD_DAEMON_INFO_BIND_PORT);
  gateway->address_ =
      o.listen.substr(0, o.listen.rfind(':')) + ":" + std::to_string(bound ? bound->port : 0);
  return gateway;
}

HttpGateway::~HttpGateway() {
  if (daemon_) MHD_stop_daemon(daemon_);
}

int HttpGateway::respond(MHD_Connection* connection, const std::string& verb,
                         const std::string& path, const Exchange& exchange) {
  RouteLookup lookup = find_route(routes_, verb, path);
  if (!lookup.match && lookup.path_known)
    return send_status(connection,
                       {grpc::StatusCode::UNIMPLEMENTED, verb + " " + path + ": no such method"},
                       MHD_HTTP_METHOD_NOT_ALLOWED);
  if (!lookup.match)
    return send_status(connection, {grpc::StatusCode::NOT_FOUND, "no route " + verb + " " + path});
  if (exchange.too_large)
    return send_status(connection,
                       {grpc::StatusCode::RESOURCE_EXHAUSTED,
                        "request body over " + std::to_string(options_.max_body_bytes) + " bytes"},
                       MHD_HTTP_CONTENT_TOO_LARGE);
  return forward(connection, *lookup.match, exchange);
}

int HttpGateway::forward(MHD_Connection* connection, const RouteMatch& match,
                         const Exchange& exchange) {
  const Route& route = *match.route;
  HttpRequestParts parts{exchange.body, match.path_values, {}};
  MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, &collect_query, &parts.query);
  if (route.body.empty() && !exchange.body.empty())
    return send_status(connection, {grpc::StatusCode::INVALID_ARGUMENT,
                                    route.verb + " " + route.path_template + " takes no body"});
  std::unique_ptr<google::protobuf::Message> request = new_message(*route.method->input_type());
  if (grpc::Status filled = fill_request(parts, *request); !filled.ok())
    return send_status(connection, filled);
  const char* header =
      MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
  std::string authorization = header ? header : "";
  if (route.method->server_streaming()) {
    std::unique_ptr<WatchStream> stream;
    grpc::Status opened = WatchStream::open(*channel_, route, authorization, *request, stream);
    if (!opened.ok()) return send_status(connection, opened);
    return send_watch(connection, std::move(stream));
  }
  std::unique_ptr<google::protobuf::Message> response = new_message(*route.method->output_type());
  grpc::Status called = call_unary(*channel_, route, authorization, *request, *response);
  if (!called.ok()) return send_status(connection, called);
  std::string json;
  if (!google::protobuf::util::MessageToJsonString(*response, &json).ok())
    return send_status(connection, {grpc::StatusCode::INTERNAL, "the reply could not be written"});
  return send_json(connection, MHD_HTTP_OK, json);
}

}  // namespace tc::daemon
