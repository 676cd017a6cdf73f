// The tenant role's SQL (tenant_directory.h), one text for both engines (SQLite turns $N into
// ?N): schema version 7, and the statements of the tenants and their keys.
#pragma once

namespace tc::daemon {

// Schema version 7: tenants, their API keys (only the secret's SHA-256), and each job's tenant.
// The jobs made before are tenant "default"'s, whose admin the static token acts as. The
// request_id's uniqueness becomes per tenant: each engine drops the column's own UNIQUE in its
// step (pg_schema.cc, job_store_schema.cc) and kTenantJobIndexesSql adds the pair's.
inline constexpr const char* kAddTenantsSql = R"sql(
CREATE TABLE tenants (
  id TEXT PRIMARY KEY,               -- [a-z0-9-]{1,63}
  role TEXT NOT NULL,                -- "tenant" or "admin"
  media_roots TEXT NOT NULL,         -- JSON array of directories, as given
  weight INTEGER NOT NULL,
  create_ms BIGINT NOT NULL
);
INSERT INTO tenants (id, role, media_roots, weight, create_ms) VALUES ('default', 'admin', '[]', 1, 0);
CREATE TABLE api_keys (
  key_id TEXT PRIMARY KEY,
  tenant_id TEXT NOT NULL,
  secret_sha256 TEXT NOT NULL,       -- lowercase hex
  created_ms BIGINT NOT NULL,
  revoked_ms BIGINT NOT NULL         -- 0: valid
);
CREATE INDEX api_keys_by_tenant ON api_keys (tenant_id);
ALTER TABLE jobs ADD COLUMN tenant_id TEXT NOT NULL DEFAULT 'default';
)sql";

// After the column's UNIQUE is gone: a request_id is unique within its tenant (NULLs, no
// request_id, are never equal), and a tenant's jobs are listed newest first by one index.
inline constexpr const char* kTenantJobIndexesSql = R"sql(
CREATE UNIQUE INDEX jobs_by_tenant_request ON jobs (tenant_id, request_id);
CREATE INDEX jobs_by_tenant ON jobs (tenant_id, seq);
)sql";

// A tenant's columns in TenantColumns order; the last three are schema version 8's
// (usage_sql.h).
#define TC_TENANT_COLUMNS \
  "id, role, media_roots, weight, create_ms, max_queued, max_running, engine_seconds_per_day"

// $9: the tenant's webhook secret (schema version 9's column, webhook_secret_sql.h), written
// with its row: a tenant never exists without it.
inline constexpr const char* kInsertTenantSql =
    "INSERT INTO tenants (" TC_TENANT_COLUMNS
    ", webhook_secret) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (id) DO NOTHING";
inline constexpr const char* kListTenantsSql =
    "SELECT " TC_TENANT_COLUMNS " FROM tenants ORDER BY id";
inline constexpr const char* kFindTenantSql =
    "SELECT " TC_TENANT_COLUMNS " FROM tenants WHERE id = $1";
// $2-$5: weight, max_queued, max_running, engine_seconds_per_day; a negative one (never a
// valid value) keeps the stored column (TenantUpdate's nullopt). One statement: a tenant is
// never seen half updated.
inline constexpr const char* kUpdateTenantSql =
    "UPDATE tenants SET "
    "weight = CASE WHEN CAST($2 AS BIGINT) < 0 THEN weight ELSE CAST($2 AS BIGINT) END, "
    "max_queued = CASE WHEN CAST($3 AS BIGINT) < 0 THEN max_queued ELSE CAST($3 AS BIGINT) END, "
    "max_running = CASE WHEN CAST($4 AS BIGINT) < 0 THEN max_running ELSE CAST($4 AS BIGINT) "
    "END, engine_seconds_per_day = CASE WHEN CAST($5 AS BIGINT) < 0 THEN "
    "engine_seconds_per_day ELSE CAST($5 AS BIGINT) END WHERE id = $1";
inline constexpr const char* kInsertKeySql =
    "INSERT INTO api_keys (key_id, tenant_id, secret_sha256, created_ms, revoked_ms) VALUES ($1, "
    "$2, $3, $4, 0)";
// The key and its tenant in one read: columns 0-4 the key's, 5-12 the tenant's.
inline constexpr const char* kFindKeySql =
    "SELECT k.key_id, k.tenant_id, k.secret_sha256, k.created_ms, k.revoked_ms, t.id, t.role, "
    "t.media_roots, t.weight, t.create_ms, t.max_queued, t.max_running, "
    "t.engine_seconds_per_day FROM api_keys k JOIN tenants t ON t.id = k.tenant_id "
    "WHERE k.key_id = $1";
inline constexpr const char* kRevokeKeySql =
    "UPDATE api_keys SET revoked_ms = CASE WHEN revoked_ms = 0 THEN $2 ELSE revoked_ms END "
    "WHERE key_id = $1";

}  // namespace tc::daemon
