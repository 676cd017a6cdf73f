// The SQLite engine's tenant role (tenant_directory.h): each call one statement, under the
// store's mutex.
#include "service/daemon/store/sqlite_job_store.h"
#include "service/daemon/store/sqlite_statement.h"
#include "service/daemon/store/tenant_columns.h"
#include "service/daemon/store/tenant_sql.h"
#include "service/daemon/store/webhook_secret_sql.h"

namespace tc::daemon {
namespace {

Status tenant_error(sqlite3* db, const std::string& what) {
  return {Code::kInternal, "job store: " + what + ": " + sqlite3_errmsg(db), true};
}

// The tenant's columns (TenantColumns order) from `first` on.
Result<TenantRecord> tenant_at(Statement& s, int first) {
  return tenant_from_columns({s.text_at(first), s.text_at(first + 1), s.text_at(first + 2),
                              s.int_at(first + 3), s.int_at(first + 4), s.int_at(first + 5),
                              s.int_at(first + 6), s.int_at(first + 7)});
}

}  // namespace

Result<bool> SqliteJobStore::create_tenant(const TenantRecord& tenant,
                                           const std::string& webhook_secret) {
  std::lock_guard lock(mutex_);
  TenantColumns row = tenant_to_columns(tenant);
  Statement s(db_, sqlite_sql(kInsertTenantSql));
  if (!s.ok()) return tenant_error(db_, "prepare create tenant");
  s.bind(1, row.id);
  s.bind(2, row.role);
  s.bind(3, row.media_roots);
  s.bind(4, row.weight);
  s.bind(5, row.create_ms);
  s.bind(6, row.max_queued);
  s.bind(7, row.max_running);
  s.bind(8, row.engine_seconds_per_day);
  s.bind(9, webhook_secret);
  if (s.step() != SQLITE_DONE) return tenant_error(db_, "create tenant " + row.id);
  return sqlite3_changes(db_) == 1;
}

Result<std::vector<TenantRecord>> SqliteJobStore::list_tenants() {
  std::lock_guard lock(mutex_);
  Statement s(db_, kListTenantsSql);
  if (!s.ok()) return tenant_error(db_, "prepare list tenants");
  std::vector<TenantRecord> tenants;
  int rc;
  while ((rc = s.step()) == SQLITE_ROW) {
    TC_ASSIGN_OR_RETURN(TenantRecord tenant, tenant_at(s, 0));
    tenants.push_back(std::move(tenant));
  }
  if (rc != SQLITE_DONE) return tenant_error(db_, "list tenants");
  return tenants;
}

Result<std::optional<TenantRecord>> SqliteJobStore::find_tenant(const std::string& id) {
  std::lock_guard lock(mutex_);
  Statement s(db_, sqlite_sql(kFindTenantSql));
  if (!s.ok()) return tenant_error(db_, "prepare find tenant");
  s.bind(1, id);
  int rc = s.step();
  if (rc == SQLITE_DONE) return std::optional<TenantRecord>();
  if (rc != SQLITE_ROW) return tenant_error(db_, "find tenant " + id);
  TC_ASSIGN_OR_RETURN(TenantRecord tenant, tenant_at(s, 0));
  return std::optional<TenantRecord>(std::move(tenant));
}

Result<bool> SqliteJobStore::update_tenant(const std::string& id, const TenantUpdate& update) {
  std::lock_guard lock(mutex_);
  Statement s(db_, sqlite_sql(kUpdateTenantSql));
  if (!s.ok()) return tenant_error(db_, "prepare update tenant");
  s.bind(1, id);
  s.bind(2, static_cast<int64_t>(update.weight.value_or(-1)));
  s.bind(3, update.max_queued.value_or(-1));
  s.bind(4, update.max_running.value_or(-1));
  s.bind(5, update.engine_seconds_per_day.value_or(-1));
  if (s.step() != SQLITE_DONE) return tenant_error(db_, "update tenant " + id);
  return sqlite3_changes(db_) == 1;
}

Status SqliteJobStore::add_key(const ApiKeyRecord& key) {
  std::lock_guard lock(mutex_);
  Statement s(db_, sqlite_sql(kInsertKeySql));
  if (!s.ok()) return tenant_error(db_, "prepare add key");
  s.bind(1, key.key_id);
  s.bind(2, key.tenant);
  s.bind(3, key.secret_sha256);
  s.bind(4, key.created_ms);
  if (s.step() != SQLITE_DONE) return tenant_error(db_, "add a key of tenant " + key.tenant);
  return {};
}

Result<std::optional<KeyGrant>> SqliteJobStore::find_key(const std::string& key_id) {
  std::lock_guard lock(mutex_);
  Statement s(db_, sqlite_sql(kFindKeySql));
  if (!s.ok()) return tenant_error(db_, "prepare find key");
  s.bind(1, key_id);
  int rc = s.step();
  if (rc == SQLITE_DONE) return std::optional<KeyGrant>();
  if (rc != SQLITE_ROW) return tenant_error(db_, "find key " + key_id);
  KeyGrant grant;
  grant.key = {s.text_at(0), s.text_at(1), s.text_at(2), s.int_at(3), s.int_at(4)};
  TC_ASSIGN_OR_RETURN(grant.tenant, tenant_at(s, 5));
  return std::optional<KeyGrant>(std::move(grant));
}

Result<bool> SqliteJobStore::revoke_key(const std::string& key_id, int64_t now_ms) {
  std::lock_guard lock(mutex_);
  Statement s(db_, sqlite_sql(kRevokeKeySql));
  if (!s.ok()) return tenant_error(db_, "prepare revoke key");
  s.bind(1, key_id);
  s.bind(2, now_ms);
  if (s.step() != SQLITE_DONE) return tenant_error(db_, "revoke key " + key_id);
  return sqlite3_changes(db_) == 1;
}

Result<bool> SqliteJobStore::set_webhook_secret(const std::string& id, const std::string& secret) {
  std::lock_guard lock(mutex_);
  Statement s(db_, sqlite_sql(kSetWebhookSecretSql));
  if (!s.ok()) return tenant_error(db_, "prepare set webhook secret");
  s.bind(1, id);
  s.bind(2, secret);
  if (s.step() != SQLITE_DONE) return tenant_error(db_, "set the webhook secret of " + id);
  return sqlite3_changes(db_) == 1;
}

Result<std::optional<std::string>> SqliteJobStore::job_webhook_secret(const std::string& job_id) {
  std::lock_guard lock(mutex_);
  Statement s(db_, sqlite_sql(kJobWebhookSecretSql));
  if (!s.ok()) return tenant_error(db_, "prepare read webhook secret");
  s.bind(1, job_id);
  int rc = s.step();
  if (rc == SQLITE_DONE) return std::optional<std::string>();
  if (rc != SQLITE_ROW) return tenant_error(db_, "read the webhook secret of job " + job_id);
  return std::optional<std::string>(s.text_at(0));
}

}  // namespace tc::daemon
