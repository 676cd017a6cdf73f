// The durable job table, as the job manager uses it: one interface, two engines. SQLite
// (sqlite_job_store.h) is the embedded default in the state directory; PostgreSQL
// (pg_job_store.h) is the store several daemons share. Every state change is written before it
// is announced, so a daemon killed at any point restarts from what clients were told.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/core/status.h"
#include "service/daemon/model/job_record.h"
#include "service/daemon/model/node_record.h"
#include "service/daemon/model/notification.h"

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
};

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

// What a cancel of a running job got (request_cancel).
enum class CancelAnswer {
  kAccepted,    // its owner stops it, and its gate will refuse to publish
  kPublishing,  // too late: its outputs are being published (the job is ending)
  kNotRunning,  // it ended or was re-queued meanwhile
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

class JobStore {
 public:
  // The embedded engine: SQLite in `state_dir`, created when missing. kInternal names the file
  // on failure.
  static Result<std::unique_ptr<JobStore>> open(const std::string& state_dir);
  virtual ~JobStore() = default;

  // Adds `job` (its seq is set). When a job with the same non-empty request_id exists, adds
  // nothing, puts that job in `job` and returns false.
  virtual Result<bool> insert(JobRecord& job) = 0;
  virtual Result<std::optional<JobRecord>> get(const std::string& id) = 0;
  virtual Result<std::optional<JobRecord>> find_by_request_id(const std::string& request_id) = 0;
  // Writes every field of an existing job, whatever its row holds now.
  Status update(const JobRecord& job) { return write(job, std::nullopt, nullptr).status(); }
  // Writes every field of `job`, and `notice` when given, in one transaction, provided the row is
  // still as `expected` says: false, with nothing written, when another writer (a node that took
  // the job over, a cancel, a claim) moved it on first. No expectation: written whatever it holds.
  virtual Result<bool> write(const JobRecord& job, const std::optional<RowState>& expected,
                             const Notification* notice) = 0;
  // Newest first: jobs with seq < before_seq (0 = from the newest), of `state` when set.
  virtual Result<std::vector<JobRecord>> list(std::optional<JobState> state, int64_t before_seq,
                                              int limit) = 0;
  virtual Result<int> count_in_state(JobState state) = 0;
  // Deletes finished jobs that ended before `end_ms`; returns how many.
  virtual Result<int> purge_ended_before(int64_t end_ms) = 0;

  // Writes this daemon's node row (its heartbeat; heartbeat_ms is the store's clock).
  virtual Status heartbeat(const NodeRecord& node) = 0;
  // Every node sharing the store, by id: with SQLite, the one that last beat.
  virtual Result<std::vector<NodeRecord>> nodes() = 0;
  // The notifications outbox (README, Webhooks). insert and update with a notice: the job and
  // the notice in one transaction (no notice when insert finds the request_id's job).
  virtual Result<bool> insert_notifying(JobRecord& job, const Notification& notice) = 0;
  Status update_notifying(const JobRecord& job, const Notification& notice) {
    return write(job, std::nullopt, &notice).status();
  }
  // Up to `limit` notices due at `now_ms`, oldest first, each the oldest undelivered one of its
  // job (so a job's changes go out in order). Each is held until `now_ms + hold_ms`: no other
  // claim returns it before then, and after then it is due again (its claimer died).
  virtual Result<std::vector<Notification>> claim_due_notifications(int64_t now_ms, int64_t hold_ms,
                                                                    int limit) = 0;
  virtual Status mark_notification_delivered(int64_t id) = 0;
  // Tried `attempts` times so far; due again at `due_ms`. `error` is kept for the operator.
  virtual Status reschedule_notification(int64_t id, int attempts, int64_t due_ms,
                                         const std::string& error) = 0;
  // No more tries: kept with `error`, never claimed again.
  virtual Status abandon_notification(int64_t id, const std::string& error) = 0;
  // How many notices are undelivered (neither delivered nor given up), and the oldest's age.
  virtual Result<NotificationBacklog> notification_backlog() = 0;

  // Cluster mode (README, Cluster; lease_sql.h). True when other daemons share this store.
  virtual bool shared() const = 0;
  // Claims the best queued job (priority, then age) whose backend is one of `claim.backends`:
  // `take` sees the candidates in that order and turns the one this node starts into its
  // running form (returning true, with the notice of the change when the job has a webhook), or
  // passes it over. The job is written with a lease of `claim.lease_ms` for `claim.node`, in one
  // transaction; with PostgreSQL, rows another node is claiming are skipped, not waited for.
  using TakeJob = std::function<bool(JobRecord& job, std::optional<Notification>& notice)>;
  virtual Result<std::optional<JobRecord>> claim(const ClaimRequest& claim,
                                                 const TakeJob& take) = 0;
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
  // Asks the node running job `id` to cancel it (it hears at once through events(), or at its
  // next lease renewal, and its gate refuses to publish), unless its gate said kPublish first.
  virtual Result<CancelAnswer> request_cancel(const std::string& id) = 0;
  // What other nodes do to jobs, as it happens; null when no other node can (SQLite).
  virtual std::unique_ptr<StoreEvents> events() = 0;
};

// Where the jobs live, as the settings say: `url` empty = SQLite in `state_dir`; a
// postgresql:// (or postgres://) URL = that database, with the password from the URL,
// PGPASSFILE, or the first line of `password_file`.
struct StoreLocation {
  std::string url;
  std::string password_file;
  std::string state_dir;
};

// kInvalidArgument for a URL of another scheme; the engine's own errors otherwise. No message
// carries the password.
Result<std::unique_ptr<JobStore>> open_job_store(const StoreLocation& where);

}  // namespace tc::daemon
