#include "service/daemon/webhook_delivery.h"

#include <spdlog/spdlog.h>

namespace tc::daemon {
namespace {

void log_outbox_error(const Status& status) {
  if (!status.is_ok()) spdlog::error("webhooks: {}", status.to_string());
}

}  // namespace

WebhookDelivery::WebhookDelivery(JobStore& store, DeliveryOptions options)
    : store_(store), options_(std::move(options)) {
  polls_.emplace(options_.poll_interval_s, [this] { deliver_all_due(); });
}

void WebhookDelivery::deliver_all_due() {
  // A full batch: more may be due at once.
  while (deliver_due() == options_.batch) {
  }
}

int WebhookDelivery::deliver_due() {
  // Held longer than a POST can take: another daemon re-sends only when this one died mid-way.
  int64_t hold_ms = 2 * (options_.timeouts.connect_ms + options_.timeouts.total_ms);
  Result<std::vector<Notification>> due =
      store_.claim_due_notifications(now_ms(), hold_ms, options_.batch);
  if (!due.is_ok()) {
    log_outbox_error(due.status());
    return 0;
  }
  for (const Notification& notice : *due) deliver(notice);
  return static_cast<int>(due->size());
}

void WebhookDelivery::deliver(const Notification& notice) {
  Status sent = post_notification(notice, options_.target, options_.timeouts);
  if (sent.is_ok()) {
    spdlog::debug("job {}: webhook {} delivered ({})", notice.job_id, notice.event,
                  notice.delivery_id);
    log_outbox_error(store_.mark_notification_delivered(notice.id));
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
    log_outbox_error(store_.abandon_notification(notice.id, sent.message()));
    return;
  }
  spdlog::warn("job {}: webhook {} attempt {} failed, next in {} ms: {}", notice.job_id,
               notice.event, attempts, *due - now_ms(), sent.message());
  log_outbox_error(store_.reschedule_notification(notice.id, attempts, *due, sent.message()));
}

}  // namespace tc::daemon
