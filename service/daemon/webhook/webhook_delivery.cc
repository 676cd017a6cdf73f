#include "service/daemon/webhook/webhook_delivery.h"

#include <spdlog/spdlog.h>

#include "service/daemon/model/job_record.h"

namespace tc::daemon {
namespace {

void log_outbox_error(const Status& status) {
  if (!status.is_ok()) spdlog::error("webhooks: {}", status.to_string());
}

}  // namespace

WebhookDelivery::WebhookDelivery(Outbox& outbox, DeliveryOptions options)
    : outbox_(outbox), options_(std::move(options)) {
  pool_.emplace(options_.pool, [this](const Notification& notice) { deliver(notice); });
  polls_.emplace(options_.poll_interval_s, [this] { deliver_all_due(); });
}

void WebhookDelivery::deliver_all_due() {
  // A full batch: more may be due at once.
  while (deliver_due() == options_.batch) {
  }
  count_backlog();
}

int WebhookDelivery::deliver_due() {
  if (!pool_->has_room()) return 0;
  // Held longer than a POST can take: another daemon re-sends only when this one died mid-way.
  // A notice still waiting here when its hold runs out is claimed again by this poll (the pool
  // takes it once), which holds it anew.
  int64_t hold_ms = 2 * (options_.timeouts.connect_ms + options_.timeouts.total_ms);
  Result<std::vector<Notification>> due =
      outbox_.claim_due_notifications(now_ms(), hold_ms, options_.batch);
  if (!due.is_ok()) {
    log_outbox_error(due.status());
    return 0;
  }
  int fresh = 0;
  for (const Notification& notice : *due) fresh += pool_->add(notice) ? 1 : 0;
  // Only notices new to the pool say more may be due.
  return fresh == static_cast<int>(due->size()) ? fresh : 0;
}

void WebhookDelivery::count_backlog() {
  Result<NotificationBacklog> backlog = outbox_.notification_backlog();
  if (!backlog.is_ok()) {
    log_outbox_error(backlog.status());
    return;
  }
  backlog_count_ = backlog->count;
  backlog_oldest_ms_ = backlog->oldest_create_ms;
}

NotificationBacklog WebhookDelivery::backlog() const {
  return {backlog_count_.load(), backlog_oldest_ms_.load()};
}

void WebhookDelivery::deliver(const Notification& notice) {
  Status sent = post_notification(notice, options_.target, options_.timeouts);
  if (sent.is_ok()) {
    spdlog::debug("job {}: webhook {} delivered ({})", notice.job_id, notice.event,
                  notice.delivery_id);
    log_outbox_error(outbox_.mark_notification_delivered(notice.id));
    return;
  }
  int attempts = notice.attempts + 1;
  // A refused address stays refused: no point in trying for a day.
  std::optional<int64_t> due =
      sent.retryable() ? options_.backoff.next_due_ms(attempts, notice.create_ms, now_ms())
                       : std::nullopt;
  if (!due) {
    spdlog::error("job {}: webhook {} ({}) given up after {} attempts: {}", notice.job_id,
                  notice.event, notice.delivery_id, attempts, sent.message());
    log_outbox_error(outbox_.abandon_notification(notice.id, sent.message()));
    return;
  }
  spdlog::warn("job {}: webhook {} attempt {} failed, next in {} ms: {}", notice.job_id,
               notice.event, attempts, *due - now_ms(), sent.message());
  log_outbox_error(outbox_.reschedule_notification(notice.id, attempts, *due, sent.message()));
}

}  // namespace tc::daemon
