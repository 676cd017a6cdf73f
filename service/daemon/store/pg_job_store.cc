#include "service/daemon/store/pg_job_store.h"

#include "service/daemon/store/attempt_columns.h"
#include "service/daemon/store/job_columns.h"
#include "service/daemon/store/job_log_sql.h"
#include "service/daemon/store/lease_sql.h"
#include "service/daemon/store/outbox_sql.h"
#include "service/daemon/store/pg_listener.h"
#include "service/daemon/store/pg_schema.h"
#include "service/daemon/store/quota_sql.h"

namespace tc::daemon {
namespace {

std::string text_of(int64_t n) {
  return std::to_string(n);
}

// The columns after seq, in kJobColumnList order: $1 is the id.
PgParams job_params(const JobRecord& job) {
  JobColumns row = to_columns(job);
  std::optional<std::string> request_id;
  if (!row.request_id.empty()) request_id = row.request_id;
  return {row.id,
          request_id,
          text_of(row.state),
          text_of(row.priority),
          row.labels,
          row.spec,
          text_of(row.create_ms),
          text_of(row.start_ms),
          text_of(row.end_ms),
          text_of(row.attempt),
          row.device,
          row.progress,
          row.report,
          row.error_code,
          row.error_message,
          text_of(row.error_retryable),
          row.webhook_url,
          row.node,
          row.backend,
          row.device_path};
}

Result<JobRecord> row_to_job(const PgRows& rows, int i) {
  JobColumns row;
  row.seq = rows.integer(i, 0);
  row.id = rows.text(i, 1);
  row.request_id = rows.text(i, 2);  // "" for NULL
  row.state = rows.integer(i, 3);
  row.priority = rows.integer(i, 4);
  row.labels = rows.text(i, 5);
  row.spec = rows.text(i, 6);
  row.create_ms = rows.integer(i, 7);
  row.start_ms = rows.integer(i, 8);
  row.end_ms = rows.integer(i, 9);
  row.attempt = rows.integer(i, 10);
  row.device = rows.text(i, 11);
  row.progress = rows.text(i, 12);
  row.report = rows.text(i, 13);
  row.error_code = rows.text(i, 14);
  row.error_message = rows.text(i, 15);
  row.error_retryable = rows.integer(i, 16);
  row.webhook_url = rows.text(i, 17);
  row.node = rows.text(i, 18);
  row.cancel_requested = rows.integer(i, 21);
  row.not_before_ms = rows.integer(i, 22);
  row.tenant_id = rows.text(i, 23);
  return from_columns(row);
}

}  // namespace

Result<std::unique_ptr<PgJobStore>> PgJobStore::open(const std::string& url,
                                                     const std::string& password) {
  TC_ASSIGN_OR_RETURN(std::unique_ptr<PgConnection> db, PgConnection::connect(url, password));
  TC_RETURN_IF_ERROR(migrate_pg_schema(*db, redact_store_url(url)));
  return std::unique_ptr<PgJobStore>(new PgJobStore(std::move(db), url, password));
}

Result<std::vector<JobRecord>> PgJobStore::select(const std::string& where, const PgParams& params,
                                                  const std::string& what) {
  return select_sql(std::string("SELECT ") + kJobColumnList + " FROM jobs " + where, params, what);
}

Result<std::vector<JobRecord>> PgJobStore::select_sql(const std::string& sql,
                                                      const PgParams& params,
                                                      const std::string& what) {
  TC_ASSIGN_OR_RETURN(PgRows rows, db_->query(sql, params, what));
  std::vector<JobRecord> jobs;
  for (int i = 0; i < rows.size(); ++i) {
    TC_ASSIGN_OR_RETURN(JobRecord job, row_to_job(rows, i));
    jobs.push_back(std::move(job));
  }
  return jobs;
}

Result<std::optional<JobRecord>> PgJobStore::find_one(const char* column, const std::string& value,
                                                      const std::optional<std::string>& tenant) {
  PgParams params = {value};
  if (tenant) params.push_back(*tenant);
  TC_ASSIGN_OR_RETURN(
      std::vector<JobRecord> jobs,
      select(std::string("WHERE ") + column + " = $1" + (tenant ? " AND tenant_id = $2" : ""),
             params, std::string("find the job of ") + column + " " + value));
  if (jobs.empty()) return std::optional<JobRecord>();
  TC_ASSIGN_OR_RETURN(jobs.front().attempts, attempts_locked(jobs.front().id));
  return std::optional<JobRecord>(std::move(jobs.front()));
}

Result<bool> PgJobStore::insert(JobRecord& job) {
  std::lock_guard lock(mutex_);
  bool inserted = false;
  TC_RETURN_IF_ERROR(db_->transaction(
      [&]() -> Status {
        TC_ASSIGN_OR_RETURN(inserted, insert_locked(job));
        return {};
      },
      "insert job " + job.id));
  return inserted;
}

Result<bool> PgJobStore::insert_notifying(JobRecord& job, const Notification& notice) {
  std::lock_guard lock(mutex_);
  bool inserted = false;
  TC_RETURN_IF_ERROR(db_->transaction(
      [&]() -> Status {
        TC_ASSIGN_OR_RETURN(inserted, insert_locked(job));
        return inserted ? enqueue_locked(notice) : Status();
      },
      "insert job " + job.id));
  return inserted;
}

// In a transaction: the tenant's row stays locked until it ends, so that two nodes count its
// queue one after the other and cannot both take its last place. A job its quota refuses whose
// request_id is taken is that request's job, found under the same lock: the repeat of a request
// another node just accepted (the tenant now at its limit) returns the first job, as any repeat
// does, instead of RESOURCE_EXHAUSTED (idempotency wins over the quota, as on SQLite).
Result<bool> PgJobStore::insert_locked(JobRecord& job) {
  TC_RETURN_IF_ERROR(
      db_->query(kLockTenantSql, {job.tenant}, "lock tenant " + job.tenant).status());
  TC_ASSIGN_OR_RETURN(TenantLoad load, tenant_load_locked(job.tenant));
  if (Status refused = admission_refusal(job.tenant, load); !refused.is_ok()) {
    if (job.request_id.empty()) return refused;
    TC_ASSIGN_OR_RETURN(std::optional<JobRecord> first,
                        find_one("request_id", job.request_id, job.tenant));
    if (!first) return refused;
    job = std::move(*first);
    return false;
  }
  // ON CONFLICT: two daemons given the same request_id of one tenant at once insert one job
  // between them.
  PgParams params = job_params(job);
  params.push_back(job.tenant);
  TC_ASSIGN_OR_RETURN(
      PgRows rows,
      db_->query(
          "INSERT INTO jobs (id, request_id, state, priority, labels, spec, create_ms, "
          "start_ms, end_ms, attempt, device, progress, report, error_code, "
          "error_message, error_retryable, webhook_url, node, backend, device_path, tenant_id) "
          "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, "
          "$18, $19, $20, $21) ON CONFLICT (tenant_id, request_id) DO NOTHING RETURNING seq",
          params, "insert job " + job.id));
  if (rows.size() == 1) {
    job.seq = rows.integer(0, 0);
    TC_RETURN_IF_ERROR(save_attempts_locked(job));
    return true;
  }
  TC_ASSIGN_OR_RETURN(std::optional<JobRecord> first,
                      find_one("request_id", job.request_id, job.tenant));
  if (!first)  // deleted between the two statements: purged, so nothing to return
    return Status(Code::kInternal, "job store: request " + job.request_id + " vanished", true);
  job = std::move(*first);
  return false;
}

Result<std::optional<JobRecord>> PgJobStore::get(const std::string& id) {
  std::lock_guard lock(mutex_);
  return find_one("id", id, std::nullopt);
}

Result<std::optional<JobRecord>> PgJobStore::find_by_request_id(
    const std::optional<std::string>& tenant, const std::string& request_id) {
  std::lock_guard lock(mutex_);
  return find_one("request_id", request_id, tenant);
}

Result<bool> PgJobStore::write(const JobRecord& job, const std::optional<RowState>& expected,
                               const Notification* notice) {
  std::lock_guard lock(mutex_);
  if (!notice && job.attempts.empty()) return update_locked(job, expected);
  bool written = false;
  TC_RETURN_IF_ERROR(db_->transaction(
      [&]() -> Status {
        TC_ASSIGN_OR_RETURN(written, update_locked(job, expected));
        return written && notice ? enqueue_locked(*notice) : Status();
      },
      "update job " + job.id));
  return written;
}

Result<bool> PgJobStore::update_locked(const JobRecord& job,
                                       const std::optional<RowState>& expected) {
  PgParams params = job_params(job);
  params.push_back(text_of(job.retry_delay_ms));
  if (expected) {
    params.push_back(text_of(static_cast<int64_t>(expected->state)));
    params.push_back(text_of(expected->attempt));
  }
  TC_ASSIGN_OR_RETURN(
      PgRows rows,
      db_->query(update_job_sql(expected.has_value(), expected && expected->lease_expired, kPgNow),
                 params, "update job " + job.id));
  if (rows.affected() == 0) return false;
  TC_RETURN_IF_ERROR(save_attempts_locked(job));
  return true;
}

// Every attempt the record holds (attempt_columns.h), over what the table has of them.
Status PgJobStore::save_attempts_locked(const JobRecord& job) {
  for (const AttemptRecord& attempt : job.attempts) {
    AttemptColumns row = attempt_columns_of(attempt);
    TC_RETURN_IF_ERROR(db_->query(kUpsertAttemptSql,
                                  {job.id, text_of(row.number), row.node, row.device,
                                   text_of(row.start_ms), text_of(row.end_ms), row.outcome,
                                   row.error_code, row.error_message, text_of(row.error_retryable)},
                                  "record attempt " + text_of(row.number) + " of job " + job.id)
                           .status());
  }
  return save_usage_locked(job);  // pg_usage.cc
}

Result<std::vector<AttemptRecord>> PgJobStore::attempts_locked(const std::string& id) {
  TC_ASSIGN_OR_RETURN(PgRows rows,
                      db_->query(kSelectAttemptsSql, {id}, "read the attempts of job " + id));
  std::vector<AttemptRecord> attempts;
  for (int i = 0; i < rows.size(); ++i) {
    AttemptColumns row{rows.integer(i, 0), rows.text(i, 1),    rows.text(i, 2),
                       rows.integer(i, 3), rows.integer(i, 4), rows.text(i, 5),
                       rows.text(i, 6),    rows.text(i, 7),    rows.integer(i, 8)};
    TC_ASSIGN_OR_RETURN(AttemptRecord attempt, attempt_from_columns(id, row));
    attempts.push_back(std::move(attempt));
  }
  TC_RETURN_IF_ERROR(read_usage_locked(id, attempts));
  return attempts;
}

Result<std::vector<JobRecord>> PgJobStore::list(std::optional<JobState> state, int64_t before_seq,
                                                int limit,
                                                const std::optional<std::string>& tenant) {
  std::lock_guard lock(mutex_);
  PgParams params = {text_of(before_seq > 0 ? before_seq : INT64_MAX), text_of(limit)};
  std::string where = "WHERE seq < $1";
  if (state) {
    params.push_back(text_of(static_cast<int64_t>(*state)));
    where += " AND state = $" + std::to_string(params.size());
  }
  if (tenant) {
    params.push_back(*tenant);
    where += " AND tenant_id = $" + std::to_string(params.size());
  }
  return select(where + " ORDER BY seq DESC LIMIT $2", params, "list jobs");
}

Result<int> PgJobStore::count_in_state(JobState state) {
  std::lock_guard lock(mutex_);
  TC_ASSIGN_OR_RETURN(PgRows rows, db_->query("SELECT COUNT(*) FROM jobs WHERE state = $1",
                                              {text_of(static_cast<int64_t>(state))}, "count"));
  return static_cast<int>(rows.integer(0, 0));
}

Result<TenantLoad> PgJobStore::tenant_load(const std::string& tenant) {
  std::lock_guard lock(mutex_);
  return tenant_load_locked(tenant);
}

Result<TenantLoad> PgJobStore::tenant_load_locked(const std::string& tenant) {
  TenantLoad load;
  TC_ASSIGN_OR_RETURN(PgRows rows, db_->query(tenant_load_sql(kPgNow), {tenant},
                                              "read the load of tenant " + tenant));
  load.quotas = {rows.integer(0, 0), rows.integer(0, 1), rows.integer(0, 2)};
  load.queued = rows.integer(0, 3);
  load.running = rows.integer(0, 4);
  load.now_ms = rows.integer(0, 5);
  TC_ASSIGN_OR_RETURN(PgRows use,
                      db_->query(kTenantUseSinceSql, {tenant, text_of(load.now_ms - kQuotaDayMs)},
                                 "read the use of tenant " + tenant));
  for (int i = 0; i < use.size(); ++i) load.day.push_back({use.integer(i, 0), use.integer(i, 1)});
  return load;
}

Result<int> PgJobStore::purge_ended_before(int64_t end_ms) {
  std::lock_guard lock(mutex_);
  TC_ASSIGN_OR_RETURN(
      PgRows rows,
      db_->query("DELETE FROM jobs WHERE state >= $1 AND end_ms < $2",
                 {text_of(static_cast<int64_t>(JobState::kSucceeded)), text_of(end_ms)}, "purge"));
  TC_RETURN_IF_ERROR(db_->query(kPurgeOrphanNotifications, {}, "purge notices").status());
  TC_RETURN_IF_ERROR(db_->query(kPurgeOrphanAttemptsSql, {}, "purge attempts").status());
  TC_RETURN_IF_ERROR(db_->query(kPurgeOrphanJobLogsSql, {}, "purge job logs").status());
  return static_cast<int>(rows.affected());
}

Status PgJobStore::heartbeat(const NodeRecord& node) {
  std::lock_guard lock(mutex_);
  // The database's clock: every node's heartbeat is judged by one clock, not by each node's.
  return db_
      ->query(
          "INSERT INTO nodes (id, started_ms, heartbeat_ms, snapshot) VALUES ($1, $2, "
          "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT, $3) ON CONFLICT (id) DO "
          "UPDATE SET started_ms = EXCLUDED.started_ms, heartbeat_ms = "
          "EXCLUDED.heartbeat_ms, snapshot = EXCLUDED.snapshot",
          {node.id, text_of(node.started_ms), node_details_json(node)},
          "heartbeat of node " + node.id)
      .status();
}

Result<std::vector<NodeRecord>> PgJobStore::list() {
  std::lock_guard lock(mutex_);
  TC_ASSIGN_OR_RETURN(PgRows rows,
                      db_->query(std::string("SELECT id, started_ms, heartbeat_ms, snapshot, ") +
                                     kPgNow + " - heartbeat_ms FROM nodes ORDER BY id",
                                 {}, "list nodes"));
  std::vector<NodeRecord> nodes(rows.size());
  for (int i = 0; i < rows.size(); ++i) {
    nodes[i].id = rows.text(i, 0);
    nodes[i].started_ms = rows.integer(i, 1);
    nodes[i].heartbeat_ms = rows.integer(i, 2);
    nodes[i].silent_ms = rows.integer(i, 4);
    TC_RETURN_IF_ERROR(node_details_from_json(rows.text(i, 3), nodes[i]));
  }
  return nodes;
}

Status PgJobStore::forget_silent(int64_t silent_ms) {
  std::lock_guard lock(mutex_);
  return db_
      ->query(std::string("DELETE FROM nodes WHERE heartbeat_ms < ") + kPgNow + " - $1",
              {text_of(silent_ms)}, "forget silent nodes")
      .status();
}

}  // namespace tc::daemon

// Claims, cancels and leases (job_queue.h, lease_table.h, lease_sql.h): several daemons claim
// from one table at once.
namespace tc::daemon {

Result<std::optional<JobRecord>> PgJobStore::claim(const ClaimRequest& claim, const TakeJob& take) {
  std::lock_guard lock(mutex_);
  std::optional<JobRecord> taken;
  if (claim.backends.empty()) return taken;
  PgParams params(claim.backends.begin(), claim.backends.end());
  params.push_back(text_of(claim.fair_share_window_ms));
  TC_RETURN_IF_ERROR(db_->transaction(
      [&]() -> Status {
        TC_ASSIGN_OR_RETURN(
            std::vector<JobRecord> candidates,
            select_sql(pg_claim_candidates_sql(claim.backends.size()), params, "claim a job"));
        for (JobRecord& job : candidates) {
          std::optional<Notification> notice;
          if (!take(job, notice)) continue;
          TC_RETURN_IF_ERROR(update_locked(job, std::nullopt).status());
          TC_RETURN_IF_ERROR(db_->query(take_lease_sql(kPgNow),
                                        {job.id, claim.node, text_of(claim.lease_ms)},
                                        "lease job " + job.id)
                                 .status());
          if (notice) TC_RETURN_IF_ERROR(enqueue_locked(*notice));
          taken = std::move(job);
          return {};
        }
        return {};
      },
      "claim a job"));
  return taken;
}

Result<std::vector<HeldJob>> PgJobStore::renew_leases(const std::string& node,
                                                      const std::vector<std::string>& jobs,
                                                      int64_t lease_ms) {
  std::vector<HeldJob> held;
  if (jobs.empty()) return held;
  PgParams params = {node, text_of(lease_ms)};
  params.insert(params.end(), jobs.begin(), jobs.end());
  std::lock_guard lock(mutex_);
  TC_ASSIGN_OR_RETURN(PgRows rows, db_->query(renew_leases_sql(kPgNow, jobs.size()), params,
                                              "renew the leases of node " + node));
  for (int i = 0; i < rows.size(); ++i)
    held.push_back({rows.text(i, 0), static_cast<int>(rows.integer(i, 1)),
                    rows.integer(i, 2) == kCancelAsked});
  return held;
}

Result<Fence> PgJobStore::hold_lease(const std::string& id, int attempt, const std::string& node,
                                     int64_t lease_ms) {
  std::lock_guard lock(mutex_);
  TC_ASSIGN_OR_RETURN(PgRows rows, db_->query(hold_lease_sql(kPgNow),
                                              {id, text_of(attempt), node, text_of(lease_ms)},
                                              "check the lease of job " + id));
  return fence_of(rows.size() > 0 ? std::optional<int64_t>(rows.integer(0, 0)) : std::nullopt);
}

Result<std::vector<JobRecord>> PgJobStore::orphans(const std::string& own_node) {
  std::lock_guard lock(mutex_);
  return select_sql(orphans_sql(kJobColumnList, kPgNow), {own_node}, "look for orphaned jobs");
}

Result<CancelAnswer> PgJobStore::request_cancel(const std::string& id) {
  std::lock_guard lock(mutex_);
  TC_ASSIGN_OR_RETURN(PgRows rows, db_->query(kRequestCancelSql, {id}, "cancel job " + id));
  return cancel_answer_of(rows.size() > 0 ? std::optional<int64_t>(rows.integer(0, 0))
                                          : std::nullopt);
}

std::unique_ptr<StoreEvents> PgJobStore::events() {
  return std::make_unique<PgListener>(url_, password_);
}

}  // namespace tc::daemon
