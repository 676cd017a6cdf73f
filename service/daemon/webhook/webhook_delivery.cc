#include "service/daemon/webhook/webhook_delivery.h"

#include <spdlog/spdlog.h>

#include "service/daemon/model/job_record.h"
#include "service/daemon/webhook/webhook_signer.h"

namespace tc::daemon {
namespace {

void log_outbox_error(const Status& status) {
  if (!status.is_ok()) spdlog::error("webhooks: {}", status.to_string());
}

// The longest one POST takes.
int64_t send_ms(const WebhookTimeouts& timeouts) {
  return timeouts.connect_ms + timeouts.total_ms;
}

// How long a claim or a renewal holds a notice: twice a POST, so that a send started under a
// renewal ends under it even if every renewal after it fails.
int64_t hold_ms(const WebhookTimeouts& timeouts) {
  return 2 * send_ms(timeouts);
}

}  // namespace

WebhookDelivery::WebhookDelivery(Outbox& outbox, DeliveryOptions options)
    : outbox_(outbox), options_(std::move(options)) {
  pool_.emplace(options_.pool, [this](const Notification& notice) { deliver(notice); });
  polls_.emplace(options_.poll_interval_s, [this] { deliver_all_due(); });
}

void WebhookDelivery::deliver_all_due() {
  renew_holds();
  // A full batch: more may be due at once.
  while (deliver_due() == options_.batch) {
  }
  count_backlog();
}

int WebhookDelivery::deliver_due() {
  if (!pool_->has_room()) return 0;
  // Held longer than a POST can take, and renewed at each poll while here: another daemon
  // sends it only when this one died or lost the store for longer than the hold.
  Result<std::vector<Notification>> due =
      outbox_.claim_due_notifications(hold_ms(options_.timeouts), options_.batch);
  if (!due.is_ok()) {
    log_outbox_error(due.status());
    return 0;
  }
  int fresh = 0;
  for (const Notification& notice : *due) fresh += pool_->add(notice) ? 1 : 0;
  // Only notices new to the pool say more may be due.
  return fresh == static_cast<int>(due->size()) ? fresh : 0;
}

// A renewal that fails leaves the holds as they were; once they have run out, the waiting
// notices may be another daemon's, so they leave the pool (the store hands them out again).
// held_until_ms_ is this daemon's own reckoning, a hold's length from before the call that set
// it: never later than the store's (on its clock, from when the call ran).
void WebhookDelivery::renew_holds() {
  int64_t now = now_ms();
  if (held_until_ms_ < now) pool_->drop_waiting();
  Status renewed = outbox_.renew_notification_holds(pool_->held(), hold_ms(options_.timeouts));
  if (!renewed.is_ok()) return log_outbox_error(renewed);
  held_until_ms_ = now + hold_ms(options_.timeouts);
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

Status WebhookDelivery::send(const Notification& notice) {
  if (!options_.tenant_secret) return post_notification(notice, options_.target, options_.timeouts);
  Result<std::optional<std::string>> secret = options_.tenant_secret(notice.job_id);
  if (!secret.is_ok())
    return {Code::kInternal,
            "webhook: cannot read the signing secret: " + secret.status().message(), true};
  if (!*secret)  // purged meanwhile: its notices go with it
    return {Code::kInternal, "webhook: job " + notice.job_id + " no longer exists", false};
  if ((*secret)->empty()) return post_notification(notice, options_.target, options_.timeouts);
  Result<std::string> key = webhook_key(**secret);
  if (!key.is_ok())
    return {Code::kInternal, "webhook: the tenant's secret: " + key.status().message(), false};
  return post_notification(notice, WebhookTarget{{*key}, options_.target.allow}, options_.timeouts);
}

void WebhookDelivery::deliver(const Notification& notice) {
  if (now_ms() + send_ms(options_.timeouts) > held_until_ms_) {
    // Its hold may run out mid-send: left to the store's next claim.
    spdlog::debug("job {}: webhook {} ({}) not sent: its hold is not renewed", notice.job_id,
                  notice.event, notice.delivery_id);
    return;
  }
  Status sent = send(notice);
  if (sent.is_ok()) {
    spdlog::debug("job {}: webhook {} delivered ({})", notice.job_id, notice.event,
                  notice.delivery_id);
    log_outbox_error(outbox_.mark_notification_delivered(notice.id));
    return;
  }
  int attempts = notice.attempts + 1;
  // A refused address stays refused: no point in trying for a day.
  int64_t now = now_ms();
  std::optional<int64_t> due = sent.retryable()
                                   ? options_.backoff.next_due_ms(attempts, notice.create_ms, now)
                                   : std::nullopt;
  if (!due) {
    spdlog::error("job {}: webhook {} ({}) given up after {} attempts: {}", notice.job_id,
                  notice.event, notice.delivery_id, attempts, sent.message());
    log_outbox_error(outbox_.abandon_notification(notice.id, sent.message()));
    return;
  }
  // The store makes the delay a due time on its own clock.
  spdlog::warn("job {}: webhook {} attempt {} failed, next in {} ms: {}", notice.job_id,
               notice.event, attempts, *due - now, sent.message());
  log_outbox_error(
      outbox_.reschedule_notification(notice.id, attempts, *due - now, sent.message()));
}

}  // namespace tc::daemon
