// The PostgreSQL engine's notifications outbox (outbox.h): claims take rows with FOR UPDATE SKIP
// LOCKED, so with several daemons on one database each notice goes to one of them. A job's row
// and its notice are written in one transaction (enqueue_locked).
#include <algorithm>

#include "service/daemon/store/lease_sql.h"
#include "service/daemon/store/outbox_sql.h"
#include "service/daemon/store/pg_job_store.h"

namespace tc::daemon {

Status PgJobStore::enqueue_locked(const Notification& notice) {
  return db_
      ->query(insert_notification_sql(kPgNow),
              {notice.delivery_id, notice.job_id, notice.url, notice.event, notice.body,
               std::to_string(notice.create_ms)},
              "enqueue a notice for job " + notice.job_id)
      .status();
}

Result<std::vector<Notification>> PgJobStore::claim_due_notifications(int64_t hold_ms, int limit) {
  std::lock_guard lock(mutex_);
  TC_ASSIGN_OR_RETURN(
      PgRows rows, db_->query(claim_notifications_sql(kPgNow, "FOR UPDATE SKIP LOCKED"),
                              {std::to_string(hold_ms), std::to_string(limit)}, "claim notices"));
  std::vector<Notification> claimed;
  for (int i = 0; i < rows.size(); ++i)
    claimed.push_back({rows.integer(i, 0), rows.text(i, 1), rows.text(i, 2), rows.text(i, 3),
                       rows.text(i, 4), rows.text(i, 5), static_cast<int>(rows.integer(i, 6)),
                       rows.integer(i, 7), rows.integer(i, 8)});
  // RETURNING has no order of its own.
  std::sort(claimed.begin(), claimed.end(), [](auto& a, auto& b) { return a.id < b.id; });
  return claimed;
}

Status PgJobStore::update_notice(const char* sql, const PgParams& params) {
  std::lock_guard lock(mutex_);
  return db_->query(sql, params, "update notice " + params.front().value_or("")).status();
}

Status PgJobStore::renew_notification_holds(const std::vector<int64_t>& ids, int64_t hold_ms) {
  if (ids.empty()) return {};
  PgParams params{std::to_string(hold_ms)};
  for (int64_t id : ids) params.push_back(std::to_string(id));
  std::lock_guard lock(mutex_);
  return db_
      ->query(renew_notification_holds_sql(kPgNow, ids.size()), params, "renew the notices' holds")
      .status();
}

Status PgJobStore::mark_notification_delivered(int64_t id) {
  return update_notice(kMarkNotificationDelivered, {std::to_string(id)});
}

Status PgJobStore::reschedule_notification(int64_t id, int attempts, int64_t delay_ms,
                                           const std::string& error) {
  return update_notice(
      reschedule_notification_sql(kPgNow).c_str(),
      {std::to_string(id), std::to_string(attempts), std::to_string(delay_ms), error});
}

Status PgJobStore::abandon_notification(int64_t id, const std::string& error) {
  return update_notice(kAbandonNotification, {std::to_string(id), error});
}

Result<NotificationBacklog> PgJobStore::notification_backlog() {
  std::lock_guard lock(mutex_);
  TC_ASSIGN_OR_RETURN(PgRows rows, db_->query(kNotificationBacklog, {}, "count the backlog"));
  return NotificationBacklog{rows.integer(0, 0), rows.integer(0, 1)};
}

}  // namespace tc::daemon
