// The job store's first role: the jobs themselves, as the job service and the dispatcher use
// them (create, read, list, cancel, claim, write progress and the end). Both engines play it
// (sqlite_job_store.h, pg_job_store.h); the contract is tests/daemon/store_contract_test.cc.
// Every state change is written before it is announced, so a daemon killed at any point restarts
// from what clients were told.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/core/status.h"
#include "service/daemon/model/job_record.h"
#include "service/daemon/model/notification.h"
#include "service/daemon/model/tenant_quota.h"

namespace tc::daemon {

// What a writer last read of a job's row, to write it only if it is still so.
struct RowState {
  JobState state = JobState::kQueued;
  int attempt = 0;
  bool lease_expired = false;  // and its lease has run out (taking over a dead node's job)
};

// A lease's length as the store takes it.
inline int64_t lease_ms(double lease_s) {
  return static_cast<int64_t>(lease_s * 1000);
}

struct ClaimRequest {
  std::string node;
  std::vector<std::string> backends;  // the spec backends ("auto", "vaapi", ...) it can start now
  int64_t lease_ms = 0;
  // Fair share looks at the use measured within this long (ms) on the store's clock
  // (fair_share_window_s: the same on every node, or nodes order tenants differently).
  int64_t fair_share_window_ms = 3600000;
};

// What a cancel of a running job got (request_cancel).
enum class CancelAnswer {
  kAccepted,    // its owner stops it, and its gate will refuse to publish
  kPublishing,  // too late: its outputs are being published (the job is ending)
  kNotRunning,  // it ended or was re-queued meanwhile
};

class JobQueue {
 public:
  virtual ~JobQueue() = default;

  // Adds `job` (its seq is set). When a job of its tenant with the same non-empty request_id
  // exists, adds nothing, puts that job in `job` and returns false.
  virtual Result<bool> insert(JobRecord& job) = 0;
  // insert, with `notice` in the outbox (outbox.h) in the same transaction; no notice when
  // insert finds the request_id's job.
  virtual Result<bool> insert_notifying(JobRecord& job, const Notification& notice) = 0;
  virtual Result<std::optional<JobRecord>> get(const std::string& id) = 0;
  // The job of `tenant` with `request_id`: request ids are unique within a tenant only. Any
  // tenant's is asked for with nullopt, never implied: an empty name is a tenant with no jobs.
  virtual Result<std::optional<JobRecord>> find_by_request_id(
      const std::optional<std::string>& tenant, const std::string& request_id) = 0;
  // Writes every field of `job`, and `notice` when given, in one transaction, provided the row is
  // still as `expected` says: false, with nothing written, when another writer (a node that took
  // the job over, a cancel, a claim) moved it on first. No expectation: written whatever it holds.
  virtual Result<bool> write(const JobRecord& job, const std::optional<RowState>& expected,
                             const Notification* notice) = 0;
  // Newest first: jobs with seq < before_seq (0 = from the newest), of `state` when set, of
  // `tenant` when set (every tenant's when nullopt). The filter is in the query, so a page of
  // one tenant's jobs is full and its token right.
  virtual Result<std::vector<JobRecord>> list(std::optional<JobState> state, int64_t before_seq,
                                              int limit,
                                              const std::optional<std::string>& tenant) = 0;
  Result<std::vector<JobRecord>> list(std::optional<JobState> state, int64_t before_seq,
                                      int limit) {
    return list(state, before_seq, limit, std::nullopt);
  }
  virtual Result<int> count_in_state(JobState state) = 0;
  // What `tenant` has queued and running and used in the last 24 h, with its quotas, on the
  // store's clock (tenant_quota.h). insert refuses a job past a quota (admission_refusal) with
  // the count taken in its own transaction, so that nodes inserting at once cannot pass it.
  virtual Result<TenantLoad> tenant_load(const std::string& tenant) = 0;
  // Deletes finished jobs that ended before `end_ms`, and their notices; returns how many jobs.
  virtual Result<int> purge_ended_before(int64_t end_ms) = 0;

  // Claims the best queued job (priority, then age) whose backend is one of `claim.backends`:
  // `take` sees the candidates in that order and turns the one this node starts into its
  // running form (returning true, with the notice of the change when the job has a webhook), or
  // passes it over. The job is written with a lease of `claim.lease_ms` for `claim.node`
  // (lease_table.h, lease_sql.h), in one transaction; with PostgreSQL, rows another node is
  // claiming are skipped, not waited for.
  using TakeJob = std::function<bool(JobRecord& job, std::optional<Notification>& notice)>;
  virtual Result<std::optional<JobRecord>> claim(const ClaimRequest& claim,
                                                 const TakeJob& take) = 0;
  // Asks the node running job `id` to cancel it (it hears at once through LeaseTable::events(),
  // or at its next lease renewal, and its gate refuses to publish), unless its gate said
  // Fence::kPublish first.
  virtual Result<CancelAnswer> request_cancel(const std::string& id) = 0;
};

}  // namespace tc::daemon
