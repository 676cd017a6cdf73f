#include "service/daemon/model/node_record.h"

#include <unistd.h>

#include <algorithm>
#include <climits>
#include <nlohmann/json.hpp>

namespace tc::daemon {

using nlohmann::json;

namespace {

json load_view_to_json(const DeviceLoadView& load) {
  return {{"capacity", load.capacity},
          {"load_percent", load.load_percent},
          {"job_cores", load.job_cores},
          {"job_engine_percent", load.job_engine_percent}};
}

// A node of a release before the load model writes none: its figures read as zero.
DeviceLoadView load_view_from_json(const json& j) {
  DeviceLoadView load;
  load.capacity = j.value("capacity", 0);
  load.load_percent = j.value("load_percent", 0.0);
  load.job_cores = j.value("job_cores", 0.0);
  load.job_engine_percent = j.value("job_engine_percent", 0.0);
  return load;
}

}  // namespace

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
    node.devices.push_back({d.name, d.backend, d.slots, d.running, d.load});
    if (std::find(node.backends.begin(), node.backends.end(), d.backend) == node.backends.end())
      node.backends.push_back(d.backend);
  }
  for (const NodeSnapshot::RunningJob& r : snapshot.running) node.running_jobs.push_back(r.id);
  return node;
}

std::string node_details_json(const NodeRecord& node) {
  json devices = json::array();
  for (const NodeDevice& d : node.devices)
    devices.push_back({{"name", d.name},
                       {"backend", d.backend},
                       {"slots", d.slots},
                       {"running", d.running},
                       {"load", load_view_to_json(d.load)}});
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
                              d.at("slots").get<int>(), d.at("running").get<int>(),
                              load_view_from_json(d.value("load", json::object()))});
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
