// The cluster job store: PostgreSQL through libpq, shared by every daemon of a cluster, playing
// the four roles of job_store.h. One connection per daemon, serialised by a mutex (a few rows a
// second), re-established when the server restarts. Same contract as the SQLite engine
// (tests/daemon/store_contract_test.cc).
#pragma once

#include <memory>
#include <mutex>

#include "service/daemon/store/job_logs.h"
#include "service/daemon/store/job_queue.h"
#include "service/daemon/store/lease_table.h"
#include "service/daemon/store/node_registry.h"
#include "service/daemon/store/outbox.h"
#include "service/daemon/store/pg_connection.h"
#include "service/daemon/store/tenant_directory.h"
#include "service/daemon/store/usage_ledger.h"

namespace tc::daemon {

class PgJobStore final : public JobQueue,
                         public Outbox,
                         public NodeRegistry,
                         public LeaseTable,
                         public JobLogs,
                         public TenantDirectory,
                         public UsageLedger {
 public:
  // Connects and brings the schema to this binary's version (pg_schema.h).
  static Result<std::unique_ptr<PgJobStore>> open(const std::string& url,
                                                  const std::string& password);

  // JobQueue.
  Result<bool> insert(JobRecord& job) override;
  Result<bool> insert_notifying(JobRecord& job,
                                const Notification& notice) override;  // pg_outbox.cc
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
  // Claims and cancels: the end of pg_job_store.cc.
  Result<std::optional<JobRecord>> claim(const ClaimRequest& claim, const TakeJob& take) override;
  Result<CancelAnswer> request_cancel(const std::string& id) override;

  // NodeRegistry.
  Status heartbeat(const NodeRecord& node) override;
  Result<std::vector<NodeRecord>> list() override;
  Status forget_silent(int64_t silent_ms) override;

  // Outbox: pg_outbox.cc.
  Result<std::vector<Notification>> claim_due_notifications(int64_t hold_ms, int limit) override;
  Status renew_notification_holds(const std::vector<int64_t>& ids, int64_t hold_ms) override;
  Status mark_notification_delivered(int64_t id) override;
  Status reschedule_notification(int64_t id, int attempts, int64_t delay_ms,
                                 const std::string& error) override;
  Status abandon_notification(int64_t id, const std::string& error) override;
  Result<NotificationBacklog> notification_backlog() override;

  // LeaseTable: the end of pg_job_store.cc.
  Result<std::vector<HeldJob>> renew_leases(const std::string& node,
                                            const std::vector<std::string>& jobs,
                                            int64_t lease_ms) override;
  Result<Fence> hold_lease(const std::string& id, int attempt, const std::string& node,
                           int64_t lease_ms) override;
  Result<std::vector<JobRecord>> orphans(const std::string& own_node) override;
  // A listener on its own connection (pg_listener.h).
  std::unique_ptr<StoreEvents> events() override;

  // JobLogs: pg_job_logs.cc.
  Status append_log(const std::string& id, int attempt,
                    const std::vector<JobLogLine>& lines) override;
  Result<JobLog> read_log(const std::string& id, int attempt) override;

  // TenantDirectory: pg_tenants.cc.
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

  // UsageLedger: pg_usage.cc.
  Result<std::vector<UsageRow>> sum_usage(const std::optional<std::string>& tenant,
                                          int64_t since_ms, int64_t until_ms) override;

 private:
  PgJobStore(std::unique_ptr<PgConnection> db, std::string url, std::string password)
      : db_(std::move(db)), url_(std::move(url)), password_(std::move(password)) {}
  // The job whose `column` is `value`, of `tenant` when set (any tenant's when nullopt).
  Result<std::optional<JobRecord>> find_one(const char* column, const std::string& value,
                                            const std::optional<std::string>& tenant);
  Result<std::vector<JobRecord>> select(const std::string& where, const PgParams& params,
                                        const std::string& what);
  Result<std::vector<JobRecord>> select_sql(const std::string& sql, const PgParams& params,
                                            const std::string& what);
  // The bodies of insert and update, mutex_ held.
  Result<bool> insert_locked(JobRecord& job);
  Result<TenantLoad> tenant_load_locked(const std::string& tenant);
  Result<bool> update_locked(const JobRecord& job, const std::optional<RowState>& expected);
  // The attempt history (attempt_columns.h), mutex_ held.
  Status save_attempts_locked(const JobRecord& job);
  Result<std::vector<AttemptRecord>> attempts_locked(const std::string& id);
  // The ended attempts' use (usage_ledger.h, pg_usage.cc), mutex_ held.
  Status save_usage_locked(const JobRecord& job);
  Status read_usage_locked(const std::string& id, std::vector<AttemptRecord>& attempts);
  Status enqueue_locked(const Notification& notice);  // pg_outbox.cc
  Status update_notice(const char* sql, const PgParams& params);

  std::mutex mutex_;
  std::unique_ptr<PgConnection> db_;
  const std::string url_;  // for the listener's own connection
  const std::string password_;
};

}  // namespace tc::daemon
