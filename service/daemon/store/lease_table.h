// The job store's cluster role (README, Cluster; lease_sql.h): the leases by which a node holds
// the jobs it runs, taken with the job (JobQueue::claim), renewed at each beat, and checked once
// more before its outputs are published; the jobs of nodes whose lease ran out; and what other
// nodes do to jobs. With SQLite one daemon owns the file, so leases matter only across its
// restarts, but the job manager runs one code path on both engines.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pipeline/core/status.h"
#include "service/daemon/model/job_record.h"

namespace tc::daemon {

// A job a node holds the lease of, as its renewal finds it.
struct HeldJob {
  std::string id;
  int attempt = 0;
  bool cancel_requested = false;  // through another node
};

// The publish gate's answer (hold_lease). A cancel and the gate are ordered by one row update.
enum class Fence {
  kPublish,    // the attempt holds the job and is marked publishing: a cancel is refused now
  kCancelled,  // a cancel was accepted first: publish nothing
  kLost,       // another node took the job over, or it is no longer running
};

struct StoreEvent {
  enum class Kind {
    kQueued,   // a job became claimable
    kChanged,  // a job's state or progress changed
    kCancel,   // a cancel was asked of a running job
    kMissed,   // the connection was lost: anything may have changed meanwhile
  } kind = Kind::kChanged;
  std::string job_id;  // empty for kMissed
};

class StoreEvents {
 public:
  virtual ~StoreEvents() = default;
  // The events that came, waiting up to timeout_s for the first; empty when none did.
  virtual std::vector<StoreEvent> wait(double timeout_s) = 0;
};

class LeaseTable {
 public:
  virtual ~LeaseTable() = default;

  // Renews the leases of `jobs` (ids) that `node` holds, for `lease_ms` more: those it still
  // holds. None asked: none renewed.
  virtual Result<std::vector<HeldJob>> renew_leases(const std::string& node,
                                                    const std::vector<std::string>& jobs,
                                                    int64_t lease_ms) = 0;
  // The fence: kPublish when `attempt` of job `id` is still `node`'s (running, never taken
  // over) and no cancel was accepted, its lease then renewed for `lease_ms` and the job marked
  // publishing in the same row update, so that a later cancel is refused. A node publishes
  // outputs only after kPublish. Asking again answers the same.
  virtual Result<Fence> hold_lease(const std::string& id, int attempt, const std::string& node,
                                   int64_t lease_ms) = 0;
  // Running jobs whose lease ran out, and those `own_node` held (a node starting again: they
  // died with its previous process; "" for none).
  virtual Result<std::vector<JobRecord>> orphans(const std::string& own_node) = 0;
  // What other nodes do to jobs, as it happens; null when no other node can (SQLite).
  virtual std::unique_ptr<StoreEvents> events() = 0;
};

}  // namespace tc::daemon
