#include "service/daemon/store/pg_schema.h"

#include <iterator>
#include <string>

#include "service/daemon/store/attempt_columns.h"
#include "service/daemon/store/job_log_sql.h"
#include "service/daemon/store/lease_sql.h"
#include "service/daemon/store/tenant_sql.h"
#include "service/daemon/store/usage_sql.h"
#include "service/daemon/store/webhook_secret_sql.h"

namespace tc::daemon {
namespace {

// Version 1: the jobs table, column for column as the SQLite engine has it (job_columns.h).
constexpr const char* kCreateJobs = R"sql(
CREATE TABLE jobs (
  seq BIGSERIAL PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  request_id TEXT UNIQUE,          -- NULL when the client gave none
  state INTEGER NOT NULL,
  priority INTEGER NOT NULL,
  labels TEXT NOT NULL,            -- JSON object
  spec TEXT NOT NULL,              -- tc::job_spec_to_json
  create_ms BIGINT NOT NULL,
  start_ms BIGINT NOT NULL,
  end_ms BIGINT NOT NULL,
  attempt INTEGER NOT NULL,
  device TEXT NOT NULL,
  progress TEXT NOT NULL,          -- JSON, the last progress seen
  report TEXT NOT NULL,            -- JSON, when SUCCEEDED
  error_code TEXT NOT NULL,        -- code_key(), "ok" when none
  error_message TEXT NOT NULL,
  error_retryable INTEGER NOT NULL
);
CREATE INDEX jobs_by_state ON jobs (state, seq);
)sql";

// Version 2: the daemons sharing the database, each its own row, rewritten by its heartbeat.
constexpr const char* kCreateNodes = R"sql(
CREATE TABLE nodes (
  id TEXT PRIMARY KEY,             -- --node-id
  started_ms BIGINT NOT NULL,
  heartbeat_ms BIGINT NOT NULL,
  snapshot TEXT NOT NULL           -- JSON: devices, backends, slots, running jobs
);
)sql";

// Version 3: webhooks. A job's URL, and the outbox of its state changes (notification.h):
// status 0 = to send, 1 = delivered, 2 = given up.
constexpr const char* kAddNotifications = R"sql(
ALTER TABLE jobs ADD COLUMN webhook_url TEXT NOT NULL DEFAULT '';
CREATE TABLE notifications (
  id BIGSERIAL PRIMARY KEY,
  delivery_id TEXT NOT NULL UNIQUE,
  job_id TEXT NOT NULL,
  url TEXT NOT NULL,
  event TEXT NOT NULL,
  body TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  create_ms BIGINT NOT NULL,
  due_ms BIGINT NOT NULL,
  status INTEGER NOT NULL,
  last_error TEXT NOT NULL
);
CREATE INDEX notifications_pending ON notifications (status, job_id, id);
)sql";

// Version 4: cluster mode (lease_sql.h), with the columns of the jobs already there filled in,
// and the wake-ups: every node LISTENs (pg_listener.h). tc_queued when a job becomes claimable,
// tc_job when a job's state or progress changes (watchers on other nodes), tc_cancel when a
// cancel is asked of a running job's owner. The payload is the job id; a listener reads the row.
constexpr const char* kNotifyJobChanges = R"sql(
UPDATE jobs SET backend = COALESCE(spec::json->>'backend', 'auto'),
                device_path = COALESCE(spec::json->>'device', '');
CREATE FUNCTION tc_notify_job() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('tc_job', NEW.id);
  IF NEW.state = 1 THEN PERFORM pg_notify('tc_queued', NEW.id); END IF;
  IF NEW.cancel_requested = 1 AND (TG_OP = 'INSERT' OR OLD.cancel_requested = 0) THEN
    PERFORM pg_notify('tc_cancel', NEW.id);
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER jobs_inserted AFTER INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION tc_notify_job();
CREATE TRIGGER jobs_changed AFTER UPDATE ON jobs FOR EACH ROW
  WHEN (OLD.state IS DISTINCT FROM NEW.state OR OLD.progress IS DISTINCT FROM NEW.progress
        OR OLD.cancel_requested IS DISTINCT FROM NEW.cancel_requested)
  EXECUTE FUNCTION tc_notify_job();
)sql";

std::string add_leases() {
  return std::string(kAddLeasesSql) + kNotifyJobChanges;
}

// Version 7: tenants (tenant_sql.h). The column's UNIQUE, named by PostgreSQL's rule
// (<table>_<column>_key), gives way to the per-tenant index.
std::string add_tenants() {
  return std::string(kAddTenantsSql) + "ALTER TABLE jobs DROP CONSTRAINT jobs_request_id_key;\n" +
         kTenantJobIndexesSql;
}

// Step i takes the database from version i to i + 1. Append; never edit a released step.
// Version 5: the attempt history and the retry backoff (attempt_columns.h). Version 6: each
// job's own log lines (job_log_sql.h). Version 7: tenants and their keys (tenant_sql.h).
// Version 8: usage and quotas (usage_sql.h). Version 9: the tenants' webhook secrets
// (webhook_secret_sql.h).
const std::string kSteps[] = {kCreateJobs,   kCreateNodes,    kAddNotifications,
                              add_leases(),  kAddAttemptsSql, kCreateJobLogsSql,
                              add_tenants(), kAddUsageSql,    kAddWebhookSecretsSql};

// Any constant both daemons agree on: "tcschema".
constexpr const char* kMigrationLock = "SELECT pg_advisory_xact_lock(8386385893716369773)";

Result<int> applied_version(PgConnection& db) {
  TC_RETURN_IF_ERROR(
      db.run("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, "
             "applied_at TIMESTAMPTZ NOT NULL DEFAULT now())",
             "create schema_migrations"));
  TC_ASSIGN_OR_RETURN(PgRows rows, db.query("SELECT COALESCE(MAX(version), 0) FROM "
                                            "schema_migrations",
                                            {}, "read the schema version"));
  return static_cast<int>(rows.integer(0, 0));
}

Status apply_steps(PgConnection& db, int from, int target) {
  for (int version = from; version < target; ++version) {
    std::string next = std::to_string(version + 1);
    TC_RETURN_IF_ERROR(db.run(kSteps[version], "migrate to schema version " + next));
    TC_RETURN_IF_ERROR(db.query("INSERT INTO schema_migrations (version) VALUES ($1)", {next},
                                "record schema version " + next)
                           .status());
  }
  return {};
}

Status migrate_locked(PgConnection& db, const std::string& shown_url, int target) {
  TC_RETURN_IF_ERROR(db.run(kMigrationLock, "lock the schema"));
  TC_ASSIGN_OR_RETURN(int version, applied_version(db));
  if (version > pg_schema_version())
    return {Code::kInternal,
            "job store " + shown_url + ": schema version " + std::to_string(version) +
                " is newer than this transcoded knows (" + std::to_string(pg_schema_version()) +
                "): run a newer transcoded, or another database"};
  return apply_steps(db, version, target);
}

}  // namespace

int pg_schema_version() {
  return static_cast<int>(std::size(kSteps));
}

Status migrate_pg_schema(PgConnection& db, const std::string& shown_url, int target) {
  return db.transaction([&] { return migrate_locked(db, shown_url, target); }, "migration");
}

}  // namespace tc::daemon
