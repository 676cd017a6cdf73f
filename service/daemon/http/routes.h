// The HTTP routes of a gRPC service, read from its methods' (transcode.v1.http) options: the one
// place a route is declared is the proto, and the gateway and the OpenAPI document both read it.
#pragma once

#include <google/protobuf/descriptor.h>

#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace tc::daemon {

struct Route {
  std::string verb;                      // "GET" or "POST"
  std::string path_template;             // "/v1/jobs/{id}:cancel", as the proto writes it
  std::vector<std::string> path_fields;  // the request fields the template names, in order
  std::string body;                      // "*" (the request is the JSON body) or "" (no body)
  const google::protobuf::MethodDescriptor* method = nullptr;
  std::string grpc_path;  // "/transcode.v1.Transcoder/CancelJob"
  std::regex pattern;     // the template, a field matching one segment up to ':' or '/'
};

struct RouteMatch {
  const Route* route = nullptr;
  std::map<std::string, std::string> path_values;  // path field -> value
};

// transcode.v1.Transcoder, from the generated descriptors.
const google::protobuf::ServiceDescriptor& transcoder_service();

// Every method of `service` that carries an http option, in declaration order.
std::vector<Route> routes_of(const google::protobuf::ServiceDescriptor& service);

// The route for `verb` and `path`: no match when none has this path (404), and
// path_known true when a route has the path but not the verb (405).
struct RouteLookup {
  std::optional<RouteMatch> match;
  bool path_known = false;
};
RouteLookup find_route(const std::vector<Route>& routes, const std::string& verb,
                       const std::string& path);

}  // namespace tc::daemon
