// The PostgreSQL engine's tenant role (tenant_directory.h): each call one statement on the
// store's connection. Every node reads the same rows, so a key revoked through one node is
// refused by the next call on any other.
#include "service/daemon/store/pg_job_store.h"
#include "service/daemon/store/tenant_columns.h"
#include "service/daemon/store/tenant_sql.h"
#include "service/daemon/store/webhook_secret_sql.h"

namespace tc::daemon {
namespace {

Result<TenantRecord> tenant_at(const PgRows& rows, int i, int first) {
  return tenant_from_columns({rows.text(i, first), rows.text(i, first + 1), rows.text(i, first + 2),
                              rows.integer(i, first + 3), rows.integer(i, first + 4),
                              rows.integer(i, first + 5), rows.integer(i, first + 6),
                              rows.integer(i, first + 7)});
}

}  // namespace

Result<bool> PgJobStore::create_tenant(const TenantRecord& tenant,
                                       const std::string& webhook_secret) {
  TenantColumns row = tenant_to_columns(tenant);
  std::lock_guard lock(mutex_);
  TC_ASSIGN_OR_RETURN(PgRows rows,
                      db_->query(std::string(kInsertTenantSql) + " RETURNING id",
                                 {row.id, row.role, row.media_roots, std::to_string(row.weight),
                                  std::to_string(row.create_ms), std::to_string(row.max_queued),
                                  std::to_string(row.max_running),
                                  std::to_string(row.engine_seconds_per_day), webhook_secret},
                                 "create tenant " + row.id));
  return rows.size() == 1;
}

Result<std::vector<TenantRecord>> PgJobStore::list_tenants() {
  std::lock_guard lock(mutex_);
  TC_ASSIGN_OR_RETURN(PgRows rows, db_->query(kListTenantsSql, {}, "list tenants"));
  std::vector<TenantRecord> tenants;
  for (int i = 0; i < rows.size(); ++i) {
    TC_ASSIGN_OR_RETURN(TenantRecord tenant, tenant_at(rows, i, 0));
    tenants.push_back(std::move(tenant));
  }
  return tenants;
}

Result<std::optional<TenantRecord>> PgJobStore::find_tenant(const std::string& id) {
  std::lock_guard lock(mutex_);
  TC_ASSIGN_OR_RETURN(PgRows rows, db_->query(kFindTenantSql, {id}, "find tenant " + id));
  if (rows.size() == 0) return std::optional<TenantRecord>();
  TC_ASSIGN_OR_RETURN(TenantRecord tenant, tenant_at(rows, 0, 0));
  return std::optional<TenantRecord>(std::move(tenant));
}

Result<bool> PgJobStore::update_tenant(const std::string& id, const TenantUpdate& update) {
  std::lock_guard lock(mutex_);
  TC_ASSIGN_OR_RETURN(PgRows rows,
                      db_->query(kUpdateTenantSql,
                                 {id, std::to_string(update.weight.value_or(-1)),
                                  std::to_string(update.max_queued.value_or(-1)),
                                  std::to_string(update.max_running.value_or(-1)),
                                  std::to_string(update.engine_seconds_per_day.value_or(-1))},
                                 "update tenant " + id));
  return rows.affected() == 1;
}

Status PgJobStore::add_key(const ApiKeyRecord& key) {
  std::lock_guard lock(mutex_);
  return db_
      ->query(kInsertKeySql,
              {key.key_id, key.tenant, key.secret_sha256, std::to_string(key.created_ms)},
              "add a key of tenant " + key.tenant)
      .status();
}

Result<std::optional<KeyGrant>> PgJobStore::find_key(const std::string& key_id) {
  std::lock_guard lock(mutex_);
  TC_ASSIGN_OR_RETURN(PgRows rows, db_->query(kFindKeySql, {key_id}, "find key " + key_id));
  if (rows.size() == 0) return std::optional<KeyGrant>();
  KeyGrant grant;
  grant.key = {rows.text(0, 0), rows.text(0, 1), rows.text(0, 2), rows.integer(0, 3),
               rows.integer(0, 4)};
  TC_ASSIGN_OR_RETURN(grant.tenant, tenant_at(rows, 0, 5));
  return std::optional<KeyGrant>(std::move(grant));
}

Result<bool> PgJobStore::revoke_key(const std::string& key_id, int64_t now_ms) {
  std::lock_guard lock(mutex_);
  TC_ASSIGN_OR_RETURN(PgRows rows,
                      db_->query(std::string(kRevokeKeySql) + " RETURNING key_id",
                                 {key_id, std::to_string(now_ms)}, "revoke key " + key_id));
  return rows.size() == 1;
}

Result<bool> PgJobStore::set_webhook_secret(const std::string& id, const std::string& secret) {
  std::lock_guard lock(mutex_);
  TC_ASSIGN_OR_RETURN(PgRows rows, db_->query(kSetWebhookSecretSql, {id, secret},
                                              "set the webhook secret of " + id));
  return rows.affected() == 1;
}

Result<std::optional<std::string>> PgJobStore::job_webhook_secret(const std::string& job_id) {
  std::lock_guard lock(mutex_);
  TC_ASSIGN_OR_RETURN(PgRows rows, db_->query(kJobWebhookSecretSql, {job_id},
                                              "read the webhook secret of job " + job_id));
  if (rows.size() == 0) return std::optional<std::string>();
  return std::optional<std::string>(rows.text(0, 0));
}

}  // namespace tc::daemon
