#include "service/daemon/api/tenant_admin.h"

#include <google/protobuf/util/time_util.h>

#include "pipeline/core/user_text.h"
#include "service/daemon/jobs/job_service.h"
#include "service/daemon/model/job_record.h"
#include "service/daemon/policy/request_policy.h"
#include "service/daemon/webhook/webhook_signer.h"

namespace tc::daemon {
namespace {

namespace pb = transcode::v1;
using google::protobuf::util::TimeUtil;

ApiStatus admins_only(const Caller& caller) {
  if (caller.admin) return {};
  return {ApiCode::kPermissionDenied,
          "tenant " + caller.tenant + " is not an admin: managing tenants needs an admin's key"};
}

ApiStatus invalid(const std::string& field, const Status& why) {
  return {ApiCode::kInvalidArgument, ApiReason::kInvalidField, field, why.message()};
}

// The bounds of a tenant's weight and quotas (docs/tenants.md, Managing tenants): wide enough
// for any real fleet, narrow enough that the scheduler's sums never overflow.
constexpr int kMaxWeight = 1000;
constexpr int64_t kMaxJobQuota = 1'000'000'000;
constexpr int64_t kMaxEngineSeconds = 1'000'000'000'000;

ApiStatus out_of_range(const std::string& field, int64_t value, int64_t low, int64_t high,
                       const std::string& meaning) {
  if (value >= low && value <= high) return {};
  return {ApiCode::kInvalidArgument, ApiReason::kInvalidField, field,
          field + " " + std::to_string(value) + " is not of " + std::to_string(low) + ".." +
              std::to_string(high) + " (" + meaning + ")"};
}

// kInvalidArgument naming the first of the given values out of its bounds.
ApiStatus check_limits(const TenantUpdate& update) {
  if (update.weight)
    TC_API_RETURN_IF_ERROR(out_of_range("weight", *update.weight, 1, kMaxWeight, "its share"));
  if (update.max_queued)
    TC_API_RETURN_IF_ERROR(
        out_of_range("max_queued", *update.max_queued, 0, kMaxJobQuota, "0: no limit"));
  if (update.max_running)
    TC_API_RETURN_IF_ERROR(
        out_of_range("max_running", *update.max_running, 0, kMaxJobQuota, "0: no limit"));
  if (update.engine_seconds_per_day)
    TC_API_RETURN_IF_ERROR(out_of_range("engine_seconds_per_day", *update.engine_seconds_per_day, 0,
                                        kMaxEngineSeconds, "0: no limit"));
  return {};
}

void tenant_to_proto(const TenantRecord& tenant, pb::Tenant& out) {
  out.set_id(tenant.id);
  out.set_role(std::string(role_name(tenant.role)));
  for (const std::string& root : tenant.media_roots) out.add_media_roots(root);
  out.set_weight(tenant.weight);
  out.set_max_queued(tenant.quotas.max_queued);
  out.set_max_running(tenant.quotas.max_running);
  out.set_engine_seconds_per_day(tenant.quotas.engine_seconds_per_day);
  *out.mutable_create_time() = TimeUtil::MillisecondsToTimestamp(tenant.create_ms);
}

void key_to_proto(const ApiKeyRecord& key, pb::ApiKey& out) {
  out.set_key_id(key.key_id);
  out.set_tenant(key.tenant);
  *out.mutable_create_time() = TimeUtil::MillisecondsToTimestamp(key.created_ms);
  if (key.revoked_ms != 0)
    *out.mutable_revoke_time() = TimeUtil::MillisecondsToTimestamp(key.revoked_ms);
}

ApiStatus unknown_tenant(const std::string& id) {
  return {ApiCode::kNotFound, ApiReason::kUnspecified, "tenant",
          "tenant " + quote_value(id) + " not found"};
}

}  // namespace

ApiStatus TenantAdmin::create_tenant(const Caller& caller, const pb::CreateTenantRequest& request,
                                     pb::Tenant& reply) {
  TC_API_RETURN_IF_ERROR(admins_only(caller));
  if (Status name = check_tenant_name(request.id(), "id"); !name.is_ok())
    return invalid("id", name);
  // A weight of 0 is "not given": the default, 1.
  TenantUpdate limits{request.weight() == 0 ? 1 : request.weight(), request.max_queued(),
                      request.max_running(), request.engine_seconds_per_day()};
  TC_API_RETURN_IF_ERROR(check_limits(limits));
  std::vector<std::string> roots(request.media_roots().begin(), request.media_roots().end());
  TC_API_RETURN_IF_ERROR(check_tenant_roots(roots, node_roots_, "media_roots"));
  TenantRecord tenant{
      request.id(), request.admin() ? TenantRole::kAdmin : TenantRole::kTenant,
      roots,        *limits.weight,
      now_ms(),     {*limits.max_queued, *limits.max_running, *limits.engine_seconds_per_day}};
  // The secret is written with the row: a tenant never stands without its own.
  Result<std::string> secret = make_webhook_secret();
  if (!secret.is_ok()) return {ApiCode::kInternal, secret.status().message()};
  Result<bool> created = tenants_.create_tenant(tenant, *secret);
  if (!created.is_ok()) return store_failure(created.status());
  if (!*created)
    return {ApiCode::kAlreadyExists, "tenant " + quote_value(tenant.id) + " already exists"};
  tenant_to_proto(tenant, reply);
  reply.set_webhook_secret(*secret);
  return {};
}

ApiStatus TenantAdmin::list_tenants(const Caller& caller, pb::ListTenantsResponse& reply) {
  TC_API_RETURN_IF_ERROR(admins_only(caller));
  Result<std::vector<TenantRecord>> tenants = tenants_.list_tenants();
  if (!tenants.is_ok()) return store_failure(tenants.status());
  for (const TenantRecord& tenant : *tenants) tenant_to_proto(tenant, *reply.add_tenants());
  return {};
}

ApiStatus TenantAdmin::update_tenant(const Caller& caller, const pb::UpdateTenantRequest& request,
                                     pb::Tenant& reply) {
  TC_API_RETURN_IF_ERROR(admins_only(caller));
  if (Status name = check_tenant_name(request.tenant(), "tenant"); !name.is_ok())
    return invalid("tenant", name);
  TenantUpdate update;
  if (request.has_weight()) update.weight = request.weight();
  if (request.has_max_queued()) update.max_queued = request.max_queued();
  if (request.has_max_running()) update.max_running = request.max_running();
  if (request.has_engine_seconds_per_day())
    update.engine_seconds_per_day = request.engine_seconds_per_day();
  TC_API_RETURN_IF_ERROR(check_limits(update));
  Result<bool> updated = tenants_.update_tenant(request.tenant(), update);
  if (!updated.is_ok()) return store_failure(updated.status());
  if (!*updated) return unknown_tenant(request.tenant());
  // A second read for the reply; a concurrent update between them shows the later one's values.
  Result<std::optional<TenantRecord>> tenant = tenants_.find_tenant(request.tenant());
  if (!tenant.is_ok()) return store_failure(tenant.status());
  if (!*tenant) return unknown_tenant(request.tenant());
  tenant_to_proto(**tenant, reply);
  return {};
}

ApiStatus TenantAdmin::create_key(const Caller& caller, const pb::CreateApiKeyRequest& request,
                                  pb::ApiKey& reply) {
  TC_API_RETURN_IF_ERROR(admins_only(caller));
  if (Status name = check_tenant_name(request.tenant(), "tenant"); !name.is_ok())
    return invalid("tenant", name);
  Result<std::optional<TenantRecord>> tenant = tenants_.find_tenant(request.tenant());
  if (!tenant.is_ok()) return store_failure(tenant.status());
  if (!*tenant) return unknown_tenant(request.tenant());
  Result<NewApiKey> key = make_api_key(request.tenant(), now_ms());
  if (!key.is_ok()) return {ApiCode::kInternal, key.status().message()};
  if (Status added = tenants_.add_key(key->record); !added.is_ok()) return store_failure(added);
  key_to_proto(key->record, reply);
  reply.set_key(key->full);
  return {};
}

ApiStatus TenantAdmin::revoke_key(const Caller& caller, const pb::RevokeApiKeyRequest& request,
                                  pb::ApiKey& reply) {
  TC_API_RETURN_IF_ERROR(admins_only(caller));
  TC_API_RETURN_IF_ERROR(check_length(request.key_id(), kMaxIdBytes, "key_id"));
  Result<bool> revoked = tenants_.revoke_key(request.key_id(), now_ms());
  if (!revoked.is_ok()) return store_failure(revoked.status());
  Result<std::optional<KeyGrant>> grant = tenants_.find_key(request.key_id());
  if (!grant.is_ok()) return store_failure(grant.status());
  if (!*revoked || !*grant)
    return {ApiCode::kNotFound, ApiReason::kUnspecified, "key_id",
            "API key " + quote_value(request.key_id()) + " not found"};
  key_to_proto((*grant)->key, reply);
  return {};
}

ApiStatus TenantAdmin::rotate_webhook_secret(const Caller& caller,
                                             const pb::RotateWebhookSecretRequest& request,
                                             pb::WebhookSecret& reply) {
  TC_API_RETURN_IF_ERROR(admins_only(caller));
  if (Status name = check_tenant_name(request.tenant(), "tenant"); !name.is_ok())
    return invalid("tenant", name);
  if (request.tenant() == kDefaultTenant)
    return {ApiCode::kFailedPrecondition, ApiReason::kUnspecified, "tenant",
            "the default tenant's notices are signed with the node's webhook_secret_file: "
            "rotate that file's secret instead (docs/daemon.md, Webhooks)"};
  Result<std::optional<TenantRecord>> tenant = tenants_.find_tenant(request.tenant());
  if (!tenant.is_ok()) return store_failure(tenant.status());
  if (!*tenant) return unknown_tenant(request.tenant());
  Result<std::string> secret = set_new_secret(request.tenant());
  if (!secret.is_ok()) return store_failure(secret.status());
  reply.set_tenant(request.tenant());
  reply.set_secret(*secret);
  return {};
}

Result<std::string> TenantAdmin::set_new_secret(const std::string& tenant) {
  TC_ASSIGN_OR_RETURN(std::string secret, make_webhook_secret());
  TC_ASSIGN_OR_RETURN(bool set, tenants_.set_webhook_secret(tenant, secret));
  if (!set) return Status(Code::kInternal, "tenant " + tenant + " vanished", true);
  return secret;
}

}  // namespace tc::daemon
