// The notifications outbox's SQL, one text for both engines (the SQLite engine turns $N into its
// own ?N): what a claim takes, the columns it returns in Notification's order, the updates.
// Due times and holds are on the store's clock (`now`, lease_sql.h's SQL expression per
// engine), so a daemon whose clock runs ahead does not take the others' holds for run out.
#pragma once

#include <string>

namespace tc::daemon {

inline constexpr const char* kNotificationColumns =
    "id, delivery_id, job_id, url, event, body, attempts, create_ms, due_ms";

// $1..$5 = delivery id, job, url, event, body; $6 = create_ms (the writer's clock, kept for the
// operator and the backoff's horizon). Due at once, on the store's clock.
inline std::string insert_notification_sql(const char* now) {
  return std::string(
             "INSERT INTO notifications (delivery_id, job_id, url, event, body, attempts, "
             "create_ms, due_ms, status, last_error) VALUES ($1, $2, $3, $4, $5, 0, $6, ") +
         now + ", 0, '')";
}

// $1 = hold length (ms), $2 = limit. Only the oldest pending notice of each job is claimable, so
// a job's changes go out in order; `lock` is PostgreSQL's FOR UPDATE SKIP LOCKED (several
// nodes claim at once, each row goes to one), empty for SQLite (one writer).
inline std::string claim_notifications_sql(const char* now, const char* lock) {
  return std::string("UPDATE notifications SET due_ms = ") + now +
         " + $1 WHERE id IN (SELECT id FROM notifications n WHERE status = 0 AND due_ms <= " + now +
         " AND NOT EXISTS (SELECT 1 FROM notifications e WHERE e.job_id = n.job_id AND "
         "e.status = 0 AND e.id < n.id) ORDER BY id LIMIT $2 " +
         lock + ") RETURNING " + kNotificationColumns;
}

// $1 = hold length (ms), $2... = `ids`: renews the holds of the notices a daemon holds (waiting
// in its pool or being sent), so that no other claims one while it is there. A hold that ran
// out (its holder could not reach the store for that long) is not renewed: another daemon may
// hold that notice now.
inline std::string renew_notification_holds_sql(const char* now, size_t ids) {
  std::string in;
  for (size_t i = 0; i < ids; ++i) in += (i ? ", $" : "$") + std::to_string(i + 2);
  return std::string("UPDATE notifications SET due_ms = ") + now + " + $1 WHERE status = 0 AND " +
         "due_ms > " + now + " AND id IN (" + in + ")";
}

// $1 = id.
inline constexpr const char* kMarkNotificationDelivered =
    "UPDATE notifications SET status = 1, attempts = attempts + 1, last_error = '' WHERE id = $1";
// $1 = id, $2 = attempts, $3 = delay (ms) from the store's now, $4 = error.
inline std::string reschedule_notification_sql(const char* now) {
  return std::string("UPDATE notifications SET attempts = $2, due_ms = ") + now +
         " + $3, last_error = $4 WHERE id = $1";
}
// $1 = id, $2 = error.
inline constexpr const char* kAbandonNotification =
    "UPDATE notifications SET status = 2, attempts = attempts + 1, last_error = $2 WHERE id = $1";

// The undelivered notices: how many, and when the oldest was made (0 when none).
inline constexpr const char* kNotificationBacklog =
    "SELECT COUNT(*), COALESCE(MIN(create_ms), 0) FROM notifications WHERE status = 0";

// The notices of jobs no longer in the store: run with the retention purge, so a job's
// notices (its whole JSON, labels included) go with it.
inline constexpr const char* kPurgeOrphanNotifications =
    "DELETE FROM notifications WHERE NOT EXISTS (SELECT 1 FROM jobs WHERE jobs.id = "
    "notifications.job_id)";

}  // namespace tc::daemon
