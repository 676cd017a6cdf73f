#include "service/daemon/node_record.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <nlohmann/json.hpp>

namespace tc::daemon {

using nlohmann::json;

int NodeRecord::free_slots() const {
  int free = 0;
  for (const NodeDevice& d : devices) free += std::max(0, d.slots - d.running);
  return free;
}

NodeRecord node_from_snapshot(const std::string& id, int64_t started_ms,
                              const NodeSnapshot& snapshot) {
  NodeRecord node;
  node.id = id;
  node.started_ms = started_ms;
  for (const NodeSnapshot::Device& d : snapshot.devices) {
    node.devices.push_back({d.name, d.backend, d.slots, d.running});
    if (std::find(node.backends.begin(), node.backends.end(), d.backend) == node.backends.end())
      node.backends.push_back(d.backend);
  }
  for (const NodeSnapshot::RunningJob& r : snapshot.running) node.running_jobs.push_back(r.id);
  return node;
}

std::string node_details_json(const NodeRecord& node) {
  json devices = json::array();
  for (const NodeDevice& d : node.devices)
    devices.push_back(
        {{"name", d.name}, {"backend", d.backend}, {"slots", d.slots}, {"running", d.running}});
  return json{
      {"devices", devices}, {"backends", node.backends}, {"running_jobs", node.running_jobs}}
      .dump();
}

Status node_details_from_json(const std::string& text, NodeRecord& node) {
  json j = json::parse(text, nullptr, false);
  if (!j.is_object()) return {Code::kInternal, "node " + node.id + ": details are not JSON"};
  try {
    for (const json& d : j.at("devices"))
      node.devices.push_back({d.at("name").get<std::string>(), d.at("backend").get<std::string>(),
                              d.at("slots").get<int>(), d.at("running").get<int>()});
    node.backends = j.at("backends").get<std::vector<std::string>>();
    node.running_jobs = j.at("running_jobs").get<std::vector<std::string>>();
  } catch (const json::exception& e) {
    return {Code::kInternal, "node " + node.id + ": details do not read back: " + e.what()};
  }
  return {};
}

std::string default_node_id() {
  char name[HOST_NAME_MAX + 1] = {};
  if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "node";
  return name;
}

}  // namespace tc::daemon
