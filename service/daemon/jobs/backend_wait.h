// Cluster mode: a queued job whose backend no live node offers (its only GPU node rebooting, a
// driver being upgraded) waits for one instead of failing: no node claims it, and GetJob says
// what it waits for (Job.waiting_reason). It fails, naming the backend, once it has waited
// `capable_node_wait` (ManagerOptions; 0 = for ever). Liveness is judged on the store's clock
// (NodeRecord::silent_ms), so a node whose clock runs ahead takes no other for gone.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pipeline/core/status.h"
#include "service/daemon/model/job_record.h"
#include "service/daemon/model/node_record.h"

namespace tc::daemon {

struct BackendOffers {
  std::set<std::string> live;  // the backends some live node offers, this one's included
  // By backend offered by a listed node (live or not): the least silence among those nodes, on
  // the store's clock.
  std::map<std::string, int64_t> silent_ms;
  int64_t live_within_ms = 0;  // a node silent longer is not live
};

// What `nodes` offer, with `here` (this node's backends, live by definition). `self`: this
// node's id, whose row is not read.
BackendOffers offers_of(const std::vector<NodeRecord>& nodes, const std::string& self,
                        const std::set<std::string>& here, int64_t live_within_ms);

// The backend `job` waits for: none when it runs anywhere ("auto") or a live node offers it.
std::optional<std::string> awaited_backend(const JobRecord& job, const BackendOffers& offers);

// Why a queued job waits, for its waiting_reason; empty when it does not.
std::string waiting_reason_of(const JobRecord& job, const BackendOffers& offers, double wait_s);

// How long `job` has waited for its backend at `now_ms`: since it was queued or since a node
// last offered the backend live, whichever came later.
int64_t waited_ms(const JobRecord& job, const std::string& backend, const BackendOffers& offers,
                  int64_t now_ms);

// The end of a job that waited `wait_s` in vain.
Status wait_spent_error(const std::string& backend, double wait_s);

}  // namespace tc::daemon
