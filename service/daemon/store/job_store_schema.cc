#include "service/daemon/store/job_store_schema.h"

#include <sqlite3.h>

#include <iterator>
#include <nlohmann/json.hpp>
#include <vector>

#include "pipeline/exec/report.h"
#include "service/daemon/store/attempt_columns.h"
#include "service/daemon/store/job_log_sql.h"
#include "service/daemon/store/lease_sql.h"
#include "service/daemon/store/sqlite_statement.h"
#include "service/daemon/store/tenant_sql.h"
#include "service/daemon/store/usage_sql.h"
#include "service/daemon/store/webhook_secret_sql.h"

namespace tc::daemon {
namespace {

using nlohmann::json;

Status failed(sqlite3* db, const std::string& what) {
  return {Code::kInternal, "job store: " + what + ": " + sqlite3_errmsg(db)};
}

Status exec(sqlite3* db, const std::string& sql, const std::string& what) {
  char* error = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) == SQLITE_OK) return {};
  Status status(Code::kInternal,
                "job store: " + what + ": " + (error ? error : sqlite3_errmsg(db)));
  sqlite3_free(error);
  return status;
}

// Version 1: the table as the first release created it. A database of that release has
// user_version 0 and this table already: IF NOT EXISTS adopts it.
Status create_jobs_table(sqlite3* db) {
  return exec(db, R"sql(
CREATE TABLE IF NOT EXISTS jobs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  request_id TEXT UNIQUE,          -- NULL when the client gave none
  state INTEGER NOT NULL,
  priority INTEGER NOT NULL,
  labels TEXT NOT NULL,            -- JSON object
  spec TEXT NOT NULL,              -- tc::job_spec_to_json
  create_ms INTEGER NOT NULL,
  start_ms INTEGER NOT NULL,
  end_ms INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  device TEXT NOT NULL,
  progress TEXT NOT NULL,          -- JSON, the last progress seen
  report TEXT NOT NULL,            -- tc::report_to_json, when SUCCEEDED
  error_code TEXT NOT NULL,        -- code_key(), "ok" when none
  error_message TEXT NOT NULL,
  error_retryable INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS jobs_by_state ON jobs(state, seq);
)sql",
              "create the jobs table");
}

// StageDevice::to_string's text ("cpu", "vaapi /dev/dri/renderD128 (i915)") back into its parts:
// a version-1 report has nothing else.
StageDevice legacy_stage_device(std::string_view text) {
  StageDevice device;
  size_t space = text.find(' ');
  Result<BackendKind> backend = parse_backend(text.substr(0, space));
  if (text == "cpu" || space == std::string_view::npos || !backend.is_ok()) return device;
  device.backend = *backend;
  std::string_view rest = text.substr(space + 1);
  size_t paren = rest.find(" (");
  device.path = std::string(rest.substr(0, paren));
  if (paren != std::string_view::npos && rest.back() == ')')
    device.driver = std::string(rest.substr(paren + 2, rest.size() - paren - 3));
  return device;
}

// A version-1 report's stages name their device only as text ("vaapi /dev/dri/renderD128
// (i915)"); version 2 stores its parts beside it, which is what the typed report reads.
bool add_stage_device_parts(json& report) {
  bool changed = false;
  if (!report.is_object() || !report.contains("stages") || !report["stages"].is_array())
    return false;
  for (json& stage : report["stages"]) {
    if (!stage.is_object() || stage.contains("device_backend") || !stage.contains("device") ||
        !stage["device"].is_string())
      continue;
    StageDevice device = legacy_stage_device(stage["device"].get<std::string>());
    stage["device_backend"] = name_of(device.backend);
    stage["device_path"] = device.path;
    stage["device_driver"] = device.driver;
    changed = true;
  }
  return changed;
}

// Version 2: stored reports' stage devices as parts. A report that is not JSON is left as it
// is: reading it then fails naming its job, which is more use than losing it here.
Status split_stage_devices(sqlite3* db) {
  std::vector<std::pair<std::string, std::string>> rewritten;  // id, report
  Statement select(db, "SELECT id, report FROM jobs WHERE report != ''");
  if (!select.ok()) return failed(db, "read reports");
  int rc;
  while ((rc = select.step()) == SQLITE_ROW) {
    json report = json::parse(select.text_at(1), nullptr, false);
    if (add_stage_device_parts(report)) rewritten.emplace_back(select.text_at(0), report.dump());
  }
  if (rc != SQLITE_DONE) return failed(db, "read reports");
  Statement update(db, "UPDATE jobs SET report = ? WHERE id = ?");
  if (!update.ok()) return failed(db, "rewrite reports");
  for (const auto& [id, report] : rewritten) {
    update.bind(1, report);
    update.bind(2, id);
    if (update.step() != SQLITE_DONE) return failed(db, "rewrite the report of job " + id);
    update.reset();
  }
  return {};
}

// Version 3: webhooks. A job's URL, and the outbox of its state changes (notification.h):
// status 0 = to send, 1 = delivered, 2 = given up.
Status add_notifications(sqlite3* db) {
  return exec(db, R"sql(
ALTER TABLE jobs ADD COLUMN webhook_url TEXT NOT NULL DEFAULT '';
CREATE TABLE notifications (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  delivery_id TEXT NOT NULL UNIQUE,
  job_id TEXT NOT NULL,
  url TEXT NOT NULL,
  event TEXT NOT NULL,
  body TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  create_ms INTEGER NOT NULL,
  due_ms INTEGER NOT NULL,
  status INTEGER NOT NULL,
  last_error TEXT NOT NULL
);
CREATE INDEX notifications_pending ON notifications(status, job_id, id);
)sql",
              "add webhooks");
}

// Version 4: cluster mode (lease_sql.h), with the columns of the jobs already there filled in.
Status add_leases(sqlite3* db) {
  TC_RETURN_IF_ERROR(exec(db, kAddLeasesSql, "add leases"));
  return exec(db,
              "UPDATE jobs SET backend = COALESCE(json_extract(spec, '$.backend'), 'auto'), "
              "device_path = COALESCE(json_extract(spec, '$.device'), '')",
              "fill the backend and device columns");
}

// Version 5: the attempt history and the retry backoff (attempt_columns.h).
Status add_attempts(sqlite3* db) {
  return exec(db, kAddAttemptsSql, "add the attempt history");
}

// Version 6: each job's own log lines (job_logs.h).
Status add_job_logs(sqlite3* db) {
  return exec(db, kCreateJobLogsSql, "add the job logs");
}

// One text of the first row `sql` selects; kInternal naming `what` when there is none.
Result<std::string> single_text(sqlite3* db, const std::string& sql, const std::string& what) {
  Statement s(db, sql);
  if (!s.ok() || s.step() != SQLITE_ROW) return failed(db, what);
  return s.text_at(0);
}

// The jobs table as it stands (its ALTERs are in its stored CREATE text), without the UNIQUE of
// its request_id column: SQLite cannot drop a column's constraint, so the table is copied into
// one laid out so and renamed (sqlite.org/lang_altertable.html, "other kinds of table schema
// changes"), its indexes made again and its AUTOINCREMENT counter kept. A table whose column has
// no UNIQUE already is left as it is.
Status drop_request_id_unique(sqlite3* db) {
  TC_ASSIGN_OR_RETURN(std::string create,
                      single_text(db,
                                  "SELECT sql FROM sqlite_master WHERE type = 'table' AND "
                                  "name = 'jobs'",
                                  "read the jobs table's layout"));
  const std::string unique = "request_id TEXT UNIQUE";
  size_t at = create.find(unique);
  if (at == std::string::npos) return {};
  size_t paren = create.find('(');
  if (paren == std::string::npos || paren > at)
    return {Code::kInternal, "job store: the jobs table's layout is not one this transcoded made"};
  create.replace(at, unique.size(), "request_id TEXT");
  std::string sql = "CREATE TABLE jobs_v7 " + create.substr(paren) + ";\n";
  sql += "INSERT INTO jobs_v7 SELECT * FROM jobs;\n";
  std::vector<std::string> indexes;
  Statement list(db,
                 "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'jobs' "
                 "AND sql IS NOT NULL");
  if (!list.ok()) return failed(db, "read the jobs table's indexes");
  while (list.step() == SQLITE_ROW) indexes.push_back(list.text_at(0));
  TC_ASSIGN_OR_RETURN(std::string counter,
                      single_text(db,
                                  "SELECT COALESCE(MAX(seq), 0) FROM sqlite_sequence WHERE "
                                  "name = 'jobs'",
                                  "read the jobs' sequence"));
  sql += "DROP TABLE jobs;\nALTER TABLE jobs_v7 RENAME TO jobs;\n";
  for (const std::string& index : indexes) sql += index + ";\n";
  sql += "UPDATE sqlite_sequence SET seq = MAX(seq, " + std::to_string(std::stoll(counter)) +
         ") WHERE name = 'jobs';\n";
  return exec(db, sql, "lay out the jobs table for tenants");
}

// Version 7: tenants and their keys, each job's tenant, request ids unique per tenant
// (tenant_sql.h).
Status add_tenants(sqlite3* db) {
  TC_RETURN_IF_ERROR(exec(db, kAddTenantsSql, "add tenants"));
  TC_RETURN_IF_ERROR(drop_request_id_unique(db));
  return exec(db, kTenantJobIndexesSql, "index the jobs by tenant");
}

// Version 8: measured use per attempt and the tenants' quotas (usage_sql.h).
Status add_usage(sqlite3* db) {
  return exec(db, kAddUsageSql, "add usage and quotas");
}

// Version 9: each tenant's webhook signing secret (webhook_secret_sql.h).
Status add_webhook_secrets(sqlite3* db) {
  return exec(db, kAddWebhookSecretsSql, "add the tenants' webhook secrets");
}

// Step i takes the database from version i to i + 1. Append; never edit a released step.
using Step = Status (*)(sqlite3*);
constexpr Step kSteps[] = {create_jobs_table, split_stage_devices, add_notifications,
                           add_leases,        add_attempts,        add_job_logs,
                           add_tenants,       add_usage,           add_webhook_secrets};

Result<int> user_version(sqlite3* db) {
  Statement statement(db, "PRAGMA user_version");
  if (!statement.ok() || statement.step() != SQLITE_ROW) return failed(db, "read user_version");
  return static_cast<int>(statement.int_at(0));
}

Status run_steps(sqlite3* db, int from) {
  for (int version = from; version < job_store_schema_version(); ++version)
    TC_RETURN_IF_ERROR(kSteps[version](db));
  return exec(db, "PRAGMA user_version = " + std::to_string(job_store_schema_version()),
              "set user_version");
}

}  // namespace

int job_store_schema_version() {
  return static_cast<int>(std::size(kSteps));
}

Status migrate_schema(sqlite3* db, const std::string& path) {
  // IMMEDIATE: a second daemon on the same directory waits here instead of migrating too.
  TC_RETURN_IF_ERROR(exec(db, "BEGIN IMMEDIATE", "begin migration"));
  Result<int> version = user_version(db);
  Status status = version.status();
  if (status.is_ok() && *version > job_store_schema_version())
    status = Status(Code::kInternal, "job store " + path + ": schema version " +
                                         std::to_string(*version) +
                                         " is newer than this transcoded knows (" +
                                         std::to_string(job_store_schema_version()) +
                                         "): run a newer transcoded, or another state_dir");
  if (status.is_ok() && *version < job_store_schema_version()) status = run_steps(db, *version);
  if (!status.is_ok()) {
    (void)exec(db, "ROLLBACK", "roll back migration");
    return status;
  }
  return exec(db, "COMMIT", "commit migration");
}

}  // namespace tc::daemon
