// The delivery of webhooks: a poll thread claims due notices from the store's outbox (with
// several daemons on one database, each notice goes to one) and hands them to a WebhookPool,
// whose threads POST them (at most a few at once per receiver, so a slow receiver delays only
// its own notices), mark them delivered on 2xx, and otherwise reschedule them by WebhookBackoff
// or give up (logged). A notice is held in the store while it waits in the pool or is being
// sent: each poll renews the holds of the pool's notices, and a send starts only while the last
// renewal covers the whole of it (WebhookTimeouts), so no other daemon sends a notice while its
// first send is in flight. Never an RPC thread. What was not delivered when the daemon stopped is
// still in the outbox and goes out after the next start.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>

#include "service/daemon/common/periodic_thread.h"
#include "service/daemon/store/outbox.h"
#include "service/daemon/webhook/webhook_backoff.h"
#include "service/daemon/webhook/webhook_pool.h"
#include "service/daemon/webhook/webhook_sender.h"

namespace tc::daemon {

// The secret of a job's tenant (TenantDirectory::job_webhook_secret): "" when it has none.
using TenantSecret = std::function<Result<std::optional<std::string>>(const std::string& job_id)>;

struct DeliveryOptions {
  WebhookTarget target;  // the node's HMAC keys and webhook_allow
  WebhookBackoff backoff;
  WebhookTimeouts timeouts;
  PoolOptions pool;
  double poll_interval_s = 0.5;  // how often the outbox is looked at
  int batch = 16;                // notices claimed at once
  // Unset: every notice signed with target.keys. Set: a notice is signed with its job's
  // tenant's secret when the tenant has one (so a tenant's receivers can verify only its own
  // notices), else with target.keys (the default tenant, tenants made before schema version 9).
  TenantSecret tenant_secret;
};

class WebhookDelivery {
 public:
  // `outbox` must outlive this.
  WebhookDelivery(Outbox& outbox, DeliveryOptions options);
  WebhookDelivery(const WebhookDelivery&) = delete;
  WebhookDelivery& operator=(const WebhookDelivery&) = delete;

  // Hands what is due now to the pool, once; returns how many notices were claimed.
  int deliver_due();
  // The outbox's undelivered notices as of the last poll (metrics).
  NotificationBacklog backlog() const;

 private:
  void deliver_all_due();
  void renew_holds();
  void deliver(const Notification& notice);
  // Signs `notice` for its job's tenant and POSTs it.
  Status send(const Notification& notice);
  void count_backlog();

  Outbox& outbox_;
  DeliveryOptions options_;
  std::atomic<int64_t> backlog_count_{0};
  std::atomic<int64_t> backlog_oldest_ms_{0};
  // Until when every notice in the pool is held in the store (the last renewal's), unix ms.
  std::atomic<int64_t> held_until_ms_{0};
  std::optional<WebhookPool> pool_;
  std::optional<PeriodicThread> polls_;  // last: stops before the rest goes
};

}  // namespace tc::daemon
