// The job store's tenant role: the tenants and their API keys (model/tenant.h), read by every
// authenticated call and written by the admin RPCs. Both engines play it (sqlite_tenants.cc,
// pg_tenants.cc); the contract is tests/daemon/store_contract_test.cc. There is no cache: a key
// is looked up on each call (one primary-key read), so a revocation holds at once on every node
// that shares the store.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pipeline/core/status.h"
#include "service/daemon/model/tenant.h"

namespace tc::daemon {

class TenantDirectory {
 public:
  virtual ~TenantDirectory() = default;

  // Adds `tenant` with its webhook signing secret (webhook_secret_sql.h; "" = the node's keys)
  // in one statement, so that no failure leaves a tenant without its own secret; false, with
  // nothing written, when one of that id exists.
  virtual Result<bool> create_tenant(const TenantRecord& tenant,
                                     const std::string& webhook_secret) = 0;
  // Every tenant, by id ("default" among them).
  virtual Result<std::vector<TenantRecord>> list_tenants() = 0;
  virtual Result<std::optional<TenantRecord>> find_tenant(const std::string& id) = 0;
  // Sets tenant `id`'s weight and quotas that `update` gives, the others kept, in one
  // statement; false, with nothing written, when there is no such tenant.
  virtual Result<bool> update_tenant(const std::string& id, const TenantUpdate& update) = 0;
  // Stores a new key (its tenant exists: the caller checked).
  virtual Status add_key(const ApiKeyRecord& key) = 0;
  // Key `key_id` with its tenant, revoked or not; nullopt when there is none.
  virtual Result<std::optional<KeyGrant>> find_key(const std::string& key_id) = 0;
  // Marks key `key_id` revoked at `now_ms`; false when there is no such key. Revoking a revoked
  // key keeps its first time.
  virtual Result<bool> revoke_key(const std::string& key_id, int64_t now_ms) = 0;

  // Webhook signing (webhook_secret_sql.h). Sets tenant `id`'s secret ("" = the node's keys);
  // false when there is no such tenant.
  virtual Result<bool> set_webhook_secret(const std::string& id, const std::string& secret) = 0;
  // The secret of job `job_id`'s tenant ("" when it has none: the node's keys sign); nullopt
  // when there is no such job. Read on each delivery, so a rotation holds from the next notice.
  virtual Result<std::optional<std::string>> job_webhook_secret(const std::string& job_id) = 0;
};

}  // namespace tc::daemon
