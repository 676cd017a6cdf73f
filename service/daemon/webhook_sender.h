// One webhook POST through libcurl: the notice's body as it is, with its signature, delivery id
// and event headers (README, Webhooks). Bounded in time: a receiver that hangs costs at most
// the timeout, then counts as a failure to retry.
#pragma once

#include <string>

#include "pipeline/core/status.h"
#include "service/daemon/notification.h"

namespace tc::daemon {

struct WebhookTimeouts {
  long connect_ms = 5000;
  long total_ms = 10000;
};

// ok when the receiver answered 2xx; otherwise kOutput (retryable) naming the HTTP status or the
// transfer's error. Redirects are not followed (a 3xx is a failure): the signed body goes only
// where the job said.
Status post_notification(const Notification& notice, const std::string& secret,
                         const WebhookTimeouts& timeouts = {});

}  // namespace tc::daemon
