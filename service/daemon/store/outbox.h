// The job store's webhook role: the notifications outbox (README, Webhooks), as the delivery
// thread uses it (webhook_delivery.h). A notice is written with its job's change
// (JobQueue::insert_notifying, JobQueue::write), in the same transaction, so no change is
// announced that was not stored and none stored goes unannounced.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pipeline/core/status.h"
#include "service/daemon/model/notification.h"

namespace tc::daemon {

class Outbox {
 public:
  virtual ~Outbox() = default;

  // Every time here is on the store's clock (the database's; SQLite's host is its one node), not
  // the caller's: daemons whose clocks disagree agree on when a hold ran out (issue 40).
  //
  // Up to `limit` notices due now, oldest first, each the oldest undelivered one of its job (so
  // a job's changes go out in order). Each is held for `hold_ms` from now: no other claim returns
  // it before then, and after then it is due again (its claimer died).
  virtual Result<std::vector<Notification>> claim_due_notifications(int64_t hold_ms, int limit) = 0;
  // Holds the notices `ids`, claimed by this caller and not settled yet, for `hold_ms` from now
  // too, unless a hold has already run out (another claim may have taken that one).
  virtual Status renew_notification_holds(const std::vector<int64_t>& ids, int64_t hold_ms) = 0;
  virtual Status mark_notification_delivered(int64_t id) = 0;
  // Tried `attempts` times so far; due again `delay_ms` from now. `error` is kept for the
  // operator.
  virtual Status reschedule_notification(int64_t id, int attempts, int64_t delay_ms,
                                         const std::string& error) = 0;
  // No more tries: kept with `error`, never claimed again.
  virtual Status abandon_notification(int64_t id, const std::string& error) = 0;
  // How many notices are undelivered (neither delivered nor given up), and the oldest's age.
  virtual Result<NotificationBacklog> notification_backlog() = 0;
};

}  // namespace tc::daemon
