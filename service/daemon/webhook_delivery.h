// The delivery thread of webhooks: claims due notices from the store's outbox (with several
// daemons on one database, each notice goes to one), POSTs them, marks them delivered on 2xx,
// and otherwise reschedules them by WebhookBackoff or gives up (logged). Never an RPC thread:
// a slow receiver delays only other notices. What was not delivered when the daemon stopped
// is still in the outbox and goes out after the next start.
#pragma once

#include <optional>
#include <string>

#include "service/daemon/job_store.h"
#include "service/daemon/periodic_thread.h"
#include "service/daemon/webhook_backoff.h"
#include "service/daemon/webhook_sender.h"

namespace tc::daemon {

struct DeliveryOptions {
  WebhookTarget target;  // the HMAC keys and webhook_allow
  WebhookBackoff backoff;
  WebhookTimeouts timeouts;
  double poll_interval_s = 0.5;  // how often the outbox is looked at
  int batch = 16;                // notices claimed at once
};

class WebhookDelivery {
 public:
  // `store` must outlive this.
  WebhookDelivery(JobStore& store, DeliveryOptions options);
  WebhookDelivery(const WebhookDelivery&) = delete;
  WebhookDelivery& operator=(const WebhookDelivery&) = delete;

  // Delivers what is due now, once; returns how many notices were claimed.
  int deliver_due();

 private:
  void deliver_all_due();
  void deliver(const Notification& notice);

  JobStore& store_;
  DeliveryOptions options_;
  std::optional<PeriodicThread> polls_;  // last: stops before the rest goes
};

}  // namespace tc::daemon
