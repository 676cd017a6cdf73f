// The tenant RPCs (CreateTenant, UpdateTenant, ListTenants, CreateApiKey, RevokeApiKey,
// RotateWebhookSecret): an admin's calls alone. A tenant's key gets PERMISSION_DENIED here: these
// are not jobs, whose existence a NOT_FOUND hides, and a tenant knows it is not an admin.
#pragma once

#include <string>
#include <vector>

#include "service/daemon/model/api_status.h"
#include "service/daemon/model/tenant.h"
#include "service/daemon/store/tenant_directory.h"
#include "transcode/v1/transcoder.pb.h"

namespace tc::daemon {

class TenantAdmin {
 public:
  // `node_roots`: the node's media roots (canonical), which a tenant's must lie in.
  TenantAdmin(TenantDirectory& tenants, std::vector<std::string> node_roots)
      : tenants_(tenants), node_roots_(std::move(node_roots)) {}

  ApiStatus create_tenant(const Caller& caller, const transcode::v1::CreateTenantRequest& request,
                          transcode::v1::Tenant& reply);
  // Sets the weight and quotas the request gives (proto3 optional: unset is kept).
  ApiStatus update_tenant(const Caller& caller, const transcode::v1::UpdateTenantRequest& request,
                          transcode::v1::Tenant& reply);
  ApiStatus list_tenants(const Caller& caller, transcode::v1::ListTenantsResponse& reply);
  ApiStatus create_key(const Caller& caller, const transcode::v1::CreateApiKeyRequest& request,
                       transcode::v1::ApiKey& reply);
  ApiStatus revoke_key(const Caller& caller, const transcode::v1::RevokeApiKeyRequest& request,
                       transcode::v1::ApiKey& reply);
  // A new secret for a tenant's webhooks (webhook_secret.h), replacing its old one at once.
  ApiStatus rotate_webhook_secret(const Caller& caller,
                                  const transcode::v1::RotateWebhookSecretRequest& request,
                                  transcode::v1::WebhookSecret& reply);

 private:
  // Makes and stores a new webhook secret of `tenant`; returns it.
  Result<std::string> set_new_secret(const std::string& tenant);

  TenantDirectory& tenants_;
  const std::vector<std::string> node_roots_;
};

}  // namespace tc::daemon
