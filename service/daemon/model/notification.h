// One row of the notifications outbox: a state change of a job that has a webhook, to be POSTed
// there. Written by the store in the same transaction as the change it reports, so a change is
// announced exactly when it is stored; sent by the delivery thread (webhook_delivery.h).
#pragma once

#include <cstdint>
#include <string>

namespace tc::daemon {

struct Notification {
  int64_t id = 0;           // the store's: the order of the changes
  std::string delivery_id;  // webhook-id: unique; receivers de-duplicate on it
  std::string job_id;
  std::string url;
  std::string event;      // state_name() of the state the job entered
  std::string body;       // the Job as the API returns it, as JSON: signed and sent as it is
  int attempts = 0;       // POSTs tried so far
  int64_t create_ms = 0;  // when the change happened
  int64_t due_ms = 0;     // the next try
};

// The outbox's undelivered notices (metrics: the webhook backlog).
struct NotificationBacklog {
  int64_t count = 0;
  int64_t oldest_create_ms = 0;  // 0 when none
};

}  // namespace tc::daemon
