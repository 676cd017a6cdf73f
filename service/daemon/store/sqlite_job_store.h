// The embedded job store: SQLite in WAL mode in the state directory, playing the four roles of
// job_store.h. One connection, serialised by a mutex: the daemon writes a few rows a second.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>

#include "service/daemon/store/job_logs.h"
#include "service/daemon/store/job_queue.h"
#include "service/daemon/store/lease_table.h"
#include "service/daemon/store/node_registry.h"
#include "service/daemon/store/outbox.h"
#include "service/daemon/store/tenant_directory.h"
#include "service/daemon/store/usage_ledger.h"

struct sqlite3;

namespace tc::daemon {

class Statement;

class SqliteJobStore final : public JobQueue,
                             public Outbox,
                             public NodeRegistry,
                             public LeaseTable,
                             public JobLogs,
                             public TenantDirectory,
                             public UsageLedger {
 public:
  // Creates the directory's database when missing. kInternal names the file on failure.
  static Result<std::unique_ptr<SqliteJobStore>> open(const std::string& state_dir);
  ~SqliteJobStore() override;
  SqliteJobStore(const SqliteJobStore&) = delete;
  SqliteJobStore& operator=(const SqliteJobStore&) = delete;

  // JobQueue.
  Result<bool> insert(JobRecord& job) override;
  Result<bool> insert_notifying(JobRecord& job, const Notification& notice) override;
  Result<std::optional<JobRecord>> get(const std::string& id) override;
  Result<std::optional<JobRecord>> find_by_request_id(const std::optional<std::string>& tenant,
                                                      const std::string& request_id) override;
  Result<bool> write(const JobRecord& job, const std::optional<RowState>& expected,
                     const Notification* notice) override;
  Result<std::vector<JobRecord>> list(std::optional<JobState> state, int64_t before_seq, int limit,
                                      const std::optional<std::string>& tenant) override;
  Result<int> count_in_state(JobState state) override;
  Result<TenantLoad> tenant_load(const std::string& tenant) override;
  Result<int> purge_ended_before(int64_t end_ms) override;
  // One daemon owns an SQLite store, so claims need no locking beyond its transaction.
  Result<std::optional<JobRecord>> claim(const ClaimRequest& claim, const TakeJob& take) override;
  Result<CancelAnswer> request_cancel(const std::string& id) override;

  // NodeRegistry: the one node, this daemon, kept in memory.
  Status heartbeat(const NodeRecord& node) override;
  Result<std::vector<NodeRecord>> list() override;
  Status forget_silent(int64_t) override { return {}; }  // its one node is this daemon

  // Outbox: sqlite_outbox.cc.
  Result<std::vector<Notification>> claim_due_notifications(int64_t hold_ms, int limit) override;
  Status renew_notification_holds(const std::vector<int64_t>& ids, int64_t hold_ms) override;
  Status mark_notification_delivered(int64_t id) override;
  Status reschedule_notification(int64_t id, int attempts, int64_t delay_ms,
                                 const std::string& error) override;
  Status abandon_notification(int64_t id, const std::string& error) override;
  Result<NotificationBacklog> notification_backlog() override;

  // LeaseTable: the end of sqlite_job_store.cc. Nothing happens that this daemon does not see
  // itself: no events.
  Result<std::vector<HeldJob>> renew_leases(const std::string& node,
                                            const std::vector<std::string>& jobs,
                                            int64_t lease_ms) override;
  Result<Fence> hold_lease(const std::string& id, int attempt, const std::string& node,
                           int64_t lease_ms) override;
  Result<std::vector<JobRecord>> orphans(const std::string& own_node) override;
  std::unique_ptr<StoreEvents> events() override { return nullptr; }

  // JobLogs: sqlite_job_logs.cc.
  Status append_log(const std::string& id, int attempt,
                    const std::vector<JobLogLine>& lines) override;
  Result<JobLog> read_log(const std::string& id, int attempt) override;

  // TenantDirectory: sqlite_tenants.cc.
  Result<bool> create_tenant(const TenantRecord& tenant,
                             const std::string& webhook_secret) override;
  Result<std::vector<TenantRecord>> list_tenants() override;
  Result<std::optional<TenantRecord>> find_tenant(const std::string& id) override;
  Result<bool> update_tenant(const std::string& id, const TenantUpdate& update) override;
  Status add_key(const ApiKeyRecord& key) override;
  Result<std::optional<KeyGrant>> find_key(const std::string& key_id) override;
  Result<bool> revoke_key(const std::string& key_id, int64_t now_ms) override;
  Result<bool> set_webhook_secret(const std::string& id, const std::string& secret) override;
  Result<std::optional<std::string>> job_webhook_secret(const std::string& job_id) override;

  // UsageLedger: sqlite_usage.cc.
  Result<std::vector<UsageRow>> sum_usage(const std::optional<std::string>& tenant,
                                          int64_t since_ms, int64_t until_ms) override;

 private:
  explicit SqliteJobStore(sqlite3* db) : db_(db) {}
  Status exec(const char* sql);
  // The job whose `column` is `value`, of `tenant` when set (any tenant's when nullopt).
  Result<std::optional<JobRecord>> find_one(const char* column, const std::string& value,
                                            const std::optional<std::string>& tenant);
  // The bodies of insert and update, mutex_ held.
  Result<bool> insert_locked(JobRecord& job);
  Result<TenantLoad> tenant_load_locked(const std::string& tenant);
  Result<bool> update_locked(const JobRecord& job, const std::optional<RowState>& expected);
  // The attempt history (attempt_columns.h), mutex_ held.
  Status save_attempts_locked(const JobRecord& job);
  Result<std::vector<AttemptRecord>> attempts_locked(const std::string& id);
  // The ended attempts' use (usage_ledger.h, sqlite_usage.cc), mutex_ held.
  Status save_usage_locked(const JobRecord& job);
  Status read_usage_locked(const std::string& id, std::vector<AttemptRecord>& attempts);
  // The outbox's statements, mutex_ held (sqlite_outbox.cc).
  Status in_transaction(const std::function<Status()>& body);
  Status enqueue_locked(const Notification& notice);
  Status step_notice(Statement& update, int64_t id);
  // The job logs' statements, mutex_ held (sqlite_job_logs.cc).
  Result<LogHead> log_head_locked(const std::string& id, int attempt);
  Status insert_log_locked(const std::string& id, const JobLogLine& line, bool head);

  std::mutex mutex_;
  sqlite3* db_;
  std::mutex node_mutex_;
  std::optional<NodeRecord> node_;  // the one node: this daemon, kept in memory
};

}  // namespace tc::daemon
