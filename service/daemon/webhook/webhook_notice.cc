#include "service/daemon/webhook/webhook_notice.h"

#include <cstdio>
#include <mutex>
#include <random>

namespace tc::daemon {
namespace {

// 128 random bits: unique without coordination between the daemons of a cluster.
std::string new_delivery_id() {
  static std::mutex mutex;
  static std::mt19937_64 random{std::random_device{}()};
  std::lock_guard lock(mutex);
  char text[40];
  std::snprintf(text, sizeof text, "d-%016llx%016llx", static_cast<unsigned long long>(random()),
                static_cast<unsigned long long>(random()));
  return text;
}

}  // namespace

Notification notice_of(const JobRecord& job, std::string body) {
  Notification notice;
  notice.delivery_id = new_delivery_id();
  notice.job_id = job.id;
  notice.url = job.webhook_url;
  notice.event = state_name(job.state);
  notice.body = std::move(body);
  notice.create_ms = now_ms();
  notice.due_ms = notice.create_ms;
  return notice;
}

}  // namespace tc::daemon
