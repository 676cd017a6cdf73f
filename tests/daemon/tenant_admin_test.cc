// The tenant RPCs (api/tenant_admin.h) over a real SQLite store, the store made to fail as a lost
// connection does.
#include <gtest/gtest.h>

#include "service/daemon/api/tenant_admin.h"
#include "service/daemon/store/job_store.h"
#include "tests/support/media_tools.h"

using namespace tc;
using namespace tc::daemon;
using tc::testing::TempDir;

namespace {

namespace pb = transcode::v1;

// The store's tenant role with its connection lost after `writes` writes: every later write
// fails, retryable, with nothing written; reads pass through.
class FailingAfterWrites : public TenantDirectory {
 public:
  FailingAfterWrites(TenantDirectory& store, int writes) : store_(store), writes_left_(writes) {}

  Result<bool> create_tenant(const TenantRecord& tenant, const std::string& secret) override {
    TC_RETURN_IF_ERROR(write());
    return store_.create_tenant(tenant, secret);
  }
  Result<std::vector<TenantRecord>> list_tenants() override { return store_.list_tenants(); }
  Result<std::optional<TenantRecord>> find_tenant(const std::string& id) override {
    return store_.find_tenant(id);
  }
  Result<bool> update_tenant(const std::string& id, const TenantUpdate& update) override {
    TC_RETURN_IF_ERROR(write());
    return store_.update_tenant(id, update);
  }
  Status add_key(const ApiKeyRecord& key) override {
    TC_RETURN_IF_ERROR(write());
    return store_.add_key(key);
  }
  Result<std::optional<KeyGrant>> find_key(const std::string& key_id) override {
    return store_.find_key(key_id);
  }
  Result<bool> revoke_key(const std::string& key_id, int64_t now_ms) override {
    TC_RETURN_IF_ERROR(write());
    return store_.revoke_key(key_id, now_ms);
  }
  Result<bool> set_webhook_secret(const std::string& id, const std::string& secret) override {
    TC_RETURN_IF_ERROR(write());
    return store_.set_webhook_secret(id, secret);
  }
  Result<std::optional<std::string>> job_webhook_secret(const std::string& job_id) override {
    return store_.job_webhook_secret(job_id);
  }

 private:
  Status write() {
    if (writes_left_-- > 0) return {};
    return Status(Code::kInternal, "job store: server closed the connection unexpectedly", true);
  }

  TenantDirectory& store_;
  int writes_left_;
};

// The secret job `id`'s notices are signed with, after inserting it as a job of `tenant`.
std::string secret_of_a_job(JobStore& store, const std::string& id, const std::string& tenant) {
  JobRecord job;
  job.id = id;
  job.tenant = tenant;
  EXPECT_TRUE(store.jobs().insert(job).is_ok());
  Result<std::optional<std::string>> secret = store.tenants().job_webhook_secret(id);
  EXPECT_TRUE(secret.is_ok() && secret->has_value()) << secret.status().message();
  return secret.is_ok() && secret->has_value() ? **secret : "(none)";
}

}  // namespace

// A store lost right after CreateTenant's first write cannot leave a tenant whose notices are
// signed with the node's keys: the tenant and its secret are one write, and the secret the reply
// shows (once) is the one its notices are signed with.
TEST(TenantAdmin, ATenantIsCreatedWithItsOwnWebhookSecretInOneWrite) {
  TempDir dir;
  Result<JobStore> store = open_job_store({.state_dir = dir.path()});
  ASSERT_TRUE(store.is_ok()) << store.status().message();
  FailingAfterWrites one_write(store->tenants(), 1);
  TenantAdmin admin(one_write, {});
  pb::CreateTenantRequest request;
  request.set_id("team-a");
  request.set_max_queued(3);
  pb::Tenant reply;
  ApiStatus created = admin.create_tenant(Caller::default_admin(), request, reply);
  ASSERT_TRUE(created.is_ok()) << created.message();
  EXPECT_EQ(reply.webhook_secret().rfind("whsec_", 0), 0u) << reply.webhook_secret();
  EXPECT_EQ(reply.max_queued(), 3);
  EXPECT_EQ(secret_of_a_job(*store, "of-a", "team-a"), reply.webhook_secret());
}

// The store lost before the write: CreateTenant is UNAVAILABLE (the client retries) and no
// tenant was made.
TEST(TenantAdmin, AStoreLostBeforeTheWriteMakesNoTenant) {
  TempDir dir;
  Result<JobStore> store = open_job_store({.state_dir = dir.path()});
  ASSERT_TRUE(store.is_ok()) << store.status().message();
  FailingAfterWrites lost(store->tenants(), 0);
  TenantAdmin admin(lost, {});
  pb::CreateTenantRequest request;
  request.set_id("team-a");
  pb::Tenant reply;
  ApiStatus created = admin.create_tenant(Caller::default_admin(), request, reply);
  EXPECT_EQ(created.code(), ApiCode::kUnavailable) << created.message();
  EXPECT_TRUE(reply.webhook_secret().empty());
  EXPECT_FALSE(store->tenants().find_tenant("team-a")->has_value());
}
