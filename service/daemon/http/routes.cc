#include "service/daemon/http/routes.h"

#include "transcode/v1/http.pb.h"
#include "transcode/v1/transcoder.grpc.pb.h"

namespace tc::daemon {
namespace {

// "/v1/jobs/{id}:cancel" -> ^/v1/jobs/([^/:]+):cancel$ and the field names ["id"].
std::regex template_pattern(const std::string& path_template, std::vector<std::string>& fields) {
  static const std::regex special(R"([.^$|()\[\]*+?\\])");
  std::string pattern = "^";
  size_t at = 0;
  while (at < path_template.size()) {
    size_t open = path_template.find('{', at);
    std::string literal = path_template.substr(at, open - at);
    pattern += std::regex_replace(literal, special, R"(\$&)");
    if (open == std::string::npos) break;
    size_t close = path_template.find('}', open);
    fields.push_back(path_template.substr(open + 1, close - open - 1));
    pattern += "([^/:]+)";
    at = close + 1;
  }
  return std::regex(pattern + "$");
}

}  // namespace

const google::protobuf::ServiceDescriptor& transcoder_service() {
  return *google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
      transcode::v1::Transcoder::service_full_name());
}

std::vector<Route> routes_of(const google::protobuf::ServiceDescriptor& service) {
  std::vector<Route> routes;
  for (int i = 0; i < service.method_count(); ++i) {
    const google::protobuf::MethodDescriptor* method = service.method(i);
    if (!method->options().HasExtension(transcode::v1::http)) continue;
    const transcode::v1::HttpRule& rule = method->options().GetExtension(transcode::v1::http);
    Route route;
    route.verb = rule.has_post() ? "POST" : "GET";
    route.path_template = rule.has_post() ? rule.post() : rule.get();
    route.body = rule.body();
    route.method = method;
    route.grpc_path = "/" + service.full_name() + "/" + method->name();
    route.pattern = template_pattern(route.path_template, route.path_fields);
    routes.push_back(std::move(route));
  }
  return routes;
}

RouteLookup find_route(const std::vector<Route>& routes, const std::string& verb,
                       const std::string& path) {
  RouteLookup lookup;
  for (const Route& route : routes) {
    std::smatch groups;
    if (!std::regex_match(path, groups, route.pattern)) continue;
    lookup.path_known = true;
    if (route.verb != verb) continue;
    RouteMatch match{&route, {}};
    for (size_t i = 0; i < route.path_fields.size(); ++i)
      match.path_values[route.path_fields[i]] = groups[i + 1].str();
    lookup.match = std::move(match);
    return lookup;
  }
  return lookup;
}

}  // namespace tc::daemon
