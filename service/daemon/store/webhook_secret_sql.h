// Each tenant's webhook signing secret (docs/tenants.md, Webhooks), one text for both engines
// (SQLite turns $N into ?N): schema version 9, and its statements.
#pragma once

namespace tc::daemon {

// Schema version 9. A tenant's secret as its receivers configure it ("whsec_" and base64: the
// Standard Webhooks form); the HMAC needs it whole, so it is stored as it is, like the node's
// webhook_secret_file. '' (every tenant made before, and "default"): notices are signed with
// the node's keys, as they were.
inline constexpr const char* kAddWebhookSecretsSql =
    "ALTER TABLE tenants ADD COLUMN webhook_secret TEXT NOT NULL DEFAULT '';\n";

inline constexpr const char* kSetWebhookSecretSql =
    "UPDATE tenants SET webhook_secret = $2 WHERE id = $1";
// The secret of a job's tenant: no row when there is no such job.
inline constexpr const char* kJobWebhookSecretSql =
    "SELECT t.webhook_secret FROM jobs j JOIN tenants t ON t.id = j.tenant_id WHERE j.id = $1";

}  // namespace tc::daemon
