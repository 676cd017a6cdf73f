// `transcode tenants ...`: the tenants and their API keys (docs/tenants.md), through the admin
// RPCs. key-create and webhook-secret print the new key or secret alone on stdout, so that a
// script captures it; it is never shown again.
#include <cstdio>
#include <iostream>

#include "service/client/commands.h"
#include "service/client/job_view.h"
#include "service/common/exit_codes.h"
#include "transcode/v1/transcoder.grpc.pb.h"

namespace tc::client {
namespace {

std::unique_ptr<pb::Transcoder::Stub> stub_of(const Connection& connection) {
  return pb::Transcoder::NewStub(make_channel(connection));
}

// A quota as printed: "-" for 0, none.
std::string quota_text(int64_t quota) {
  return quota == 0 ? "-" : std::to_string(quota);
}

void print_tenant(const pb::Tenant& tenant) {
  std::string roots;
  for (const std::string& root : tenant.media_roots()) roots += " " + root;
  std::printf(
      "%s: %s, weight %d, max queued %s, max running %s, engine-seconds per day %s, media "
      "roots:%s\n",
      tenant.id().c_str(), tenant.role().c_str(), tenant.weight(),
      quota_text(tenant.max_queued()).c_str(), quota_text(tenant.max_running()).c_str(),
      quota_text(tenant.engine_seconds_per_day()).c_str(), roots.empty() ? " -" : roots.c_str());
}

// The tenant as --json prints it, or its line.
int print_reply(const pb::Tenant& tenant, bool json) {
  if (json)
    std::cout << to_json(tenant);
  else
    print_tenant(tenant);
  return kExitOk;
}

}  // namespace

int tenant_create_command(const TenantArgs& args, const Connection& connection) {
  grpc::ClientContext context;
  prepare_context(context, connection);
  pb::CreateTenantRequest request;
  request.set_id(args.name);
  request.set_admin(args.admin);
  // Not given: 0, the daemon's default (weight 1, no quota).
  request.set_weight(static_cast<int32_t>(args.weight.value_or(0)));
  request.set_max_queued(args.max_queued.value_or(0));
  request.set_max_running(args.max_running.value_or(0));
  request.set_engine_seconds_per_day(args.engine_seconds_per_day.value_or(0));
  for (const std::string& root : args.media_roots) request.add_media_roots(root);
  pb::Tenant tenant;
  grpc::Status status = stub_of(connection)->CreateTenant(&context, request, &tenant);
  if (!status.ok()) return rpc_failure(status);
  if (args.json) {
    std::cout << to_json(tenant);
    return kExitOk;
  }
  print_tenant(tenant);
  if (!tenant.webhook_secret().empty())
    std::printf("webhook secret (shown once): %s\n", tenant.webhook_secret().c_str());
  return kExitOk;
}

int tenant_update_command(const TenantArgs& args, const Connection& connection) {
  grpc::ClientContext context;
  prepare_context(context, connection);
  pb::UpdateTenantRequest request;
  request.set_tenant(args.name);
  if (args.weight) request.set_weight(static_cast<int32_t>(*args.weight));
  if (args.max_queued) request.set_max_queued(*args.max_queued);
  if (args.max_running) request.set_max_running(*args.max_running);
  if (args.engine_seconds_per_day) request.set_engine_seconds_per_day(*args.engine_seconds_per_day);
  pb::Tenant tenant;
  grpc::Status status = stub_of(connection)->UpdateTenant(&context, request, &tenant);
  if (!status.ok()) return rpc_failure(status);
  return print_reply(tenant, args.json);
}

int tenant_list_command(bool json, const Connection& connection) {
  grpc::ClientContext context;
  prepare_context(context, connection);
  pb::ListTenantsResponse tenants;
  grpc::Status status =
      stub_of(connection)->ListTenants(&context, pb::ListTenantsRequest(), &tenants);
  if (!status.ok()) return rpc_failure(status);
  if (json) {
    std::cout << to_json(tenants);
    return kExitOk;
  }
  for (const pb::Tenant& tenant : tenants.tenants()) print_tenant(tenant);
  return kExitOk;
}

int key_create_command(const std::string& tenant, bool json, const Connection& connection) {
  grpc::ClientContext context;
  prepare_context(context, connection);
  pb::CreateApiKeyRequest request;
  request.set_tenant(tenant);
  pb::ApiKey key;
  grpc::Status status = stub_of(connection)->CreateApiKey(&context, request, &key);
  if (!status.ok()) return rpc_failure(status);
  if (json) {
    std::cout << to_json(key);
    return kExitOk;
  }
  std::printf("%s\n", key.key().c_str());
  std::fprintf(stderr, "transcode: key %s of tenant %s: shown once, keep it now\n",
               key.key_id().c_str(), key.tenant().c_str());
  return kExitOk;
}

int webhook_secret_command(const std::string& tenant, bool json, const Connection& connection) {
  grpc::ClientContext context;
  prepare_context(context, connection);
  pb::RotateWebhookSecretRequest request;
  request.set_tenant(tenant);
  pb::WebhookSecret secret;
  grpc::Status status = stub_of(connection)->RotateWebhookSecret(&context, request, &secret);
  if (!status.ok()) return rpc_failure(status);
  if (json) {
    std::cout << to_json(secret);
    return kExitOk;
  }
  std::printf("%s\n", secret.secret().c_str());
  std::fprintf(stderr,
               "transcode: the webhook secret of tenant %s: shown once, the old one no longer "
               "signs\n",
               secret.tenant().c_str());
  return kExitOk;
}

int key_revoke_command(const std::string& key_id, bool json, const Connection& connection) {
  grpc::ClientContext context;
  prepare_context(context, connection);
  pb::RevokeApiKeyRequest request;
  request.set_key_id(key_id);
  pb::ApiKey key;
  grpc::Status status = stub_of(connection)->RevokeApiKey(&context, request, &key);
  if (!status.ok()) return rpc_failure(status);
  if (json)
    std::cout << to_json(key);
  else
    std::printf("key %s of tenant %s: revoked\n", key.key_id().c_str(), key.tenant().c_str());
  return kExitOk;
}

}  // namespace tc::client
