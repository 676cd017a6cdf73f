// One webhook POST through libcurl: the notice's body as it is, signed as Standard Webhooks
// (webhook-id, webhook-timestamp, webhook-signature; README, Webhooks). Bounded in time: a
// receiver that hangs costs at most the timeout, then counts as a failure to retry. Sent only
// to an address webhook_address.h allows, judged on the socket address libcurl connects to;
// no proxy from the environment and no redirect can take it elsewhere.
#pragma once

#include <string>
#include <vector>

#include "pipeline/core/status.h"
#include "service/daemon/model/notification.h"
#include "service/daemon/webhook/webhook_address.h"

namespace tc::daemon {

struct WebhookTimeouts {
  long connect_ms = 5000;
  long total_ms = 10000;
};

// What signs and what may be reached.
struct WebhookTarget {
  std::vector<std::string> keys;  // HMAC keys (webhook_key): one, or two while rotating
  WebhookAllow allow;             // beyond the public internet
};

// ok when the receiver answered 2xx; otherwise kOutput naming the HTTP status or the transfer's
// error, retryable, or not retryable when every address of the host was refused (the message
// says why). Redirects are not followed (a 3xx is a failure): the signed body goes only where
// the job said.
Status post_notification(const Notification& notice, const WebhookTarget& target,
                         const WebhookTimeouts& timeouts = {});

}  // namespace tc::daemon
