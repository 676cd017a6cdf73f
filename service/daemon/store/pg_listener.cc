#include "service/daemon/store/pg_listener.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <thread>

namespace tc::daemon {
namespace {

constexpr const char* kListen = "LISTEN tc_queued; LISTEN tc_job; LISTEN tc_cancel";

StoreEvent event_of(const PgConnection::Notice& notice) {
  using Kind = StoreEvent::Kind;
  Kind kind = notice.channel == "tc_queued"   ? Kind::kQueued
              : notice.channel == "tc_cancel" ? Kind::kCancel
                                              : Kind::kChanged;
  return {kind, notice.payload};
}

}  // namespace

Status PgListener::connect() {
  TC_ASSIGN_OR_RETURN(db_, PgConnection::connect(url_, password_));
  Status listening = db_->run(kListen, "listen for job changes");
  if (!listening.is_ok()) db_.reset();
  return listening;
}

std::vector<StoreEvent> PgListener::wait(double timeout_s) {
  if (!db_) {
    if (Status connected = connect(); !connected.is_ok()) {
      spdlog::debug("job events: {}", connected.message());
      std::this_thread::sleep_for(std::chrono::duration<double>(timeout_s));
      return {};
    }
    return {{StoreEvent::Kind::kMissed, ""}};
  }
  Result<std::vector<PgConnection::Notice>> notices = db_->notices(timeout_s);
  if (!notices.is_ok()) {
    spdlog::warn("job events: {}: listening again when the store is back",
                 notices.status().message());
    db_.reset();
    return {{StoreEvent::Kind::kMissed, ""}};
  }
  std::vector<StoreEvent> events;
  for (const PgConnection::Notice& notice : *notices) events.push_back(event_of(notice));
  return events;
}

}  // namespace tc::daemon
