#include "service/daemon/jobs/backend_wait.h"

#include <algorithm>
#include <cmath>

namespace tc::daemon {
namespace {

std::string seconds(double s) {
  return std::to_string(static_cast<long long>(std::llround(s))) + " s";
}

}  // namespace

BackendOffers offers_of(const std::vector<NodeRecord>& nodes, const std::string& self,
                        const std::set<std::string>& here, int64_t live_within_ms) {
  BackendOffers offers{here, {}, live_within_ms};
  for (const std::string& backend : here) offers.silent_ms[backend] = 0;
  for (const NodeRecord& node : nodes) {
    if (node.id == self) continue;
    for (const std::string& backend : node.backends) {
      auto [it, added] = offers.silent_ms.emplace(backend, node.silent_ms);
      if (!added) it->second = std::min(it->second, node.silent_ms);
      if (node.silent_ms <= live_within_ms) offers.live.insert(backend);
    }
  }
  return offers;
}

std::optional<std::string> awaited_backend(const JobRecord& job, const BackendOffers& offers) {
  if (job.spec.backend == BackendKind::kAuto) return std::nullopt;
  std::string backend(name_of(job.spec.backend));
  if (offers.live.count(backend)) return std::nullopt;
  return backend;
}

std::string waiting_reason_of(const JobRecord& job, const BackendOffers& offers, double wait_s) {
  std::optional<std::string> backend = awaited_backend(job, offers);
  if (!backend) return "";
  std::string bound = wait_s > 0 ? "; it fails after " + seconds(wait_s) + " (capable_node_wait)"
                                 : " (capable_node_wait = 0: for ever)";
  return "waiting for a node that offers the " + *backend + " backend: none is live" + bound;
}

int64_t waited_ms(const JobRecord& job, const std::string& backend, const BackendOffers& offers,
                  int64_t now_ms) {
  int64_t since_queued = now_ms - job.create_ms;
  auto seen = offers.silent_ms.find(backend);
  if (seen == offers.silent_ms.end()) return since_queued;  // no listed node ever offered it
  return std::min(since_queued, seen->second - offers.live_within_ms);
}

Status wait_spent_error(const std::string& backend, double wait_s) {
  return {Code::kDevice, "no live node offered the " + backend + " backend for " + seconds(wait_s) +
                             " (capable_node_wait): the job needs a node with it"};
}

}  // namespace tc::daemon
