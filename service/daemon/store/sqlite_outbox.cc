// The SQLite engine's notifications outbox (outbox.h), and the transaction that writes a job's
// row and its notice together: IMMEDIATE, on the store's one connection.
#include <sqlite3.h>

#include "service/daemon/store/lease_sql.h"
#include "service/daemon/store/outbox_sql.h"
#include "service/daemon/store/sqlite_job_store.h"
#include "service/daemon/store/sqlite_statement.h"

namespace tc::daemon {
namespace {

Status outbox_error(sqlite3* db, const std::string& what) {
  return {Code::kInternal, "job store: notifications: " + what + ": " + sqlite3_errmsg(db), true};
}

}  // namespace

Status SqliteJobStore::in_transaction(const std::function<Status()>& body) {
  TC_RETURN_IF_ERROR(exec("BEGIN IMMEDIATE"));
  Status status = body();
  if (!status.is_ok()) {
    (void)exec("ROLLBACK");
    return status;
  }
  return exec("COMMIT");
}

Status SqliteJobStore::enqueue_locked(const Notification& notice) {
  Statement s(db_, sqlite_sql(insert_notification_sql(kSqliteNow)));
  if (!s.ok()) return outbox_error(db_, "prepare enqueue");
  s.bind(1, notice.delivery_id);
  s.bind(2, notice.job_id);
  s.bind(3, notice.url);
  s.bind(4, notice.event);
  s.bind(5, notice.body);
  s.bind(6, notice.create_ms);
  if (s.step() != SQLITE_DONE) return outbox_error(db_, "enqueue for job " + notice.job_id);
  return {};
}

Result<std::vector<Notification>> SqliteJobStore::claim_due_notifications(int64_t hold_ms,
                                                                          int limit) {
  std::lock_guard lock(mutex_);
  Statement s(db_, sqlite_sql(claim_notifications_sql(kSqliteNow, "")));
  if (!s.ok()) return outbox_error(db_, "prepare claim");
  s.bind(1, hold_ms);
  s.bind(2, int64_t{limit});
  std::vector<Notification> claimed;
  int rc;
  while ((rc = s.step()) == SQLITE_ROW)
    claimed.push_back({s.int_at(0), s.text_at(1), s.text_at(2), s.text_at(3), s.text_at(4),
                       s.text_at(5), static_cast<int>(s.int_at(6)), s.int_at(7), s.int_at(8)});
  if (rc != SQLITE_DONE) return outbox_error(db_, "claim");
  // RETURNING has no order of its own.
  std::sort(claimed.begin(), claimed.end(), [](auto& a, auto& b) { return a.id < b.id; });
  return claimed;
}

Status SqliteJobStore::step_notice(Statement& s, int64_t id) {
  if (!s.ok()) return outbox_error(db_, "prepare the update of notice " + std::to_string(id));
  if (s.step() != SQLITE_DONE) return outbox_error(db_, "update notice " + std::to_string(id));
  return {};
}

Status SqliteJobStore::renew_notification_holds(const std::vector<int64_t>& ids, int64_t hold_ms) {
  if (ids.empty()) return {};
  std::lock_guard lock(mutex_);
  Statement s(db_, sqlite_sql(renew_notification_holds_sql(kSqliteNow, ids.size())));
  if (!s.ok()) return outbox_error(db_, "prepare the renewal of holds");
  s.bind(1, hold_ms);
  for (size_t i = 0; i < ids.size(); ++i) s.bind(static_cast<int>(i) + 2, ids[i]);
  if (s.step() != SQLITE_DONE) return outbox_error(db_, "renew the holds");
  return {};
}

Status SqliteJobStore::mark_notification_delivered(int64_t id) {
  std::lock_guard lock(mutex_);
  Statement s(db_, sqlite_sql(kMarkNotificationDelivered));
  s.bind(1, id);
  return step_notice(s, id);
}

Status SqliteJobStore::reschedule_notification(int64_t id, int attempts, int64_t delay_ms,
                                               const std::string& error) {
  std::lock_guard lock(mutex_);
  Statement s(db_, sqlite_sql(reschedule_notification_sql(kSqliteNow)));
  s.bind(1, id);
  s.bind(2, int64_t{attempts});
  s.bind(3, delay_ms);
  s.bind(4, error);
  return step_notice(s, id);
}

Status SqliteJobStore::abandon_notification(int64_t id, const std::string& error) {
  std::lock_guard lock(mutex_);
  Statement s(db_, sqlite_sql(kAbandonNotification));
  s.bind(1, id);
  s.bind(2, error);
  return step_notice(s, id);
}

Result<NotificationBacklog> SqliteJobStore::notification_backlog() {
  std::lock_guard lock(mutex_);
  Statement s(db_, kNotificationBacklog);
  if (!s.ok() || s.step() != SQLITE_ROW) return outbox_error(db_, "count the backlog");
  return NotificationBacklog{s.int_at(0), s.int_at(1)};
}

}  // namespace tc::daemon
